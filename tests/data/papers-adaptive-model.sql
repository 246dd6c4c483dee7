-- papers-adaptive-model.sql: the model tier's rows (backend = model) of sweeps/paper/papers_adaptive.ini
-- on theta.xml and polaris.xml, each launch once with --routing minimal and once with --routing adaptive
-- (the adaptive runs' smpi_options say routing=adaptive); made by `cd scripts && /usr/bin/python3 -m
-- a2a_tools.papers.paper_routing`: 22 s of wall time on a shared 2-core machine,
-- peak 197 MB (traces from A2A_TRACE_CACHE where kept; each row's tracing cost is in
-- model-run's log). docs/results/papers.md's note 6 is made from it.
BEGIN TRANSACTION;
CREATE TABLE results(
  run_id INT,
  section TEXT,
  kernel TEXT,
  P INT,
  Q INT,
  S INT,
  radix INT,
  radix2 INT,
  ppn INT,
  median_s REAL,
  status TEXT,
  validated INT
);
INSERT INTO "results" VALUES(1,'tra_2048_routing','tra',2048,64,32,2,NULL,NULL,6.73573079298245454282e-03,'ok',0);
INSERT INTO "results" VALUES(1,'tra_2048_routing','tra',2048,64,32,45,NULL,NULL,2.64727789665493949688e-03,'ok',0);
INSERT INTO "results" VALUES(1,'tra_2048_routing','tra',2048,64,32,46,NULL,NULL,2.65324974773727302601e-03,'ok',0);
INSERT INTO "results" VALUES(1,'tra_2048_routing','tra',2048,64,128,2,NULL,NULL,2.69120231719298177996e-02,'ok',0);
INSERT INTO "results" VALUES(1,'tra_2048_routing','tra',2048,64,128,45,NULL,NULL,1.04313495238095178124e-02,'ok',0);
INSERT INTO "results" VALUES(1,'tra_2048_routing','tra',2048,64,128,46,NULL,NULL,1.04579817042606514065e-02,'ok',0);
INSERT INTO "results" VALUES(2,'tra_2048_routing','tra',2048,64,32,2,NULL,NULL,1.34187789473684082434e-03,'ok',0);
INSERT INTO "results" VALUES(2,'tra_2048_routing','tra',2048,64,32,45,NULL,NULL,6.34563324494847105783e-04,'ok',0);
INSERT INTO "results" VALUES(2,'tra_2048_routing','tra',2048,64,32,46,NULL,NULL,6.36941186453706775609e-04,'ok',0);
INSERT INTO "results" VALUES(2,'tra_2048_routing','tra',2048,64,128,2,NULL,NULL,5.33871157894736346471e-03,'ok',0);
INSERT INTO "results" VALUES(2,'tra_2048_routing','tra',2048,64,128,45,NULL,NULL,2.35898744287219540305e-03,'ok',0);
INSERT INTO "results" VALUES(2,'tra_2048_routing','tra',2048,64,128,46,NULL,NULL,0.00237147642105263,'ok',0);
INSERT INTO "results" VALUES(3,'mpich_2048_routing','mpich_selection',2048,32,16,NULL,NULL,NULL,1.24975822844573965751e-03,'ok',0);
INSERT INTO "results" VALUES(3,'mpich_2048_routing','mpich_selection',2048,32,1024,NULL,NULL,NULL,0.0088142597481232,'ok',0);
INSERT INTO "results" VALUES(3,'tuna_2048_routing','tuna',2048,32,16,2,NULL,NULL,5.5913054292958488424e-04,'ok',0);
INSERT INTO "results" VALUES(3,'tuna_2048_routing','tuna',2048,32,16,45,NULL,NULL,5.52386818794340576747e-04,'ok',0);
INSERT INTO "results" VALUES(3,'tuna_2048_routing','tuna',2048,32,16,2048,NULL,NULL,4.40602749615722107112e-03,'ok',0);
INSERT INTO "results" VALUES(3,'tuna_2048_routing','tuna',2048,32,1024,2,NULL,NULL,2.30447424289435404132e-02,'ok',0);
INSERT INTO "results" VALUES(3,'tuna_2048_routing','tuna',2048,32,1024,45,NULL,NULL,0.00884089452205416,'ok',0);
INSERT INTO "results" VALUES(3,'tuna_2048_routing','tuna',2048,32,1024,2048,NULL,NULL,8.51846350975914330672e-03,'ok',0);
INSERT INTO "results" VALUES(4,'mpich_2048_routing','mpich_selection',2048,32,16,NULL,NULL,NULL,1.16799338781688470841e-03,'ok',0);
INSERT INTO "results" VALUES(4,'mpich_2048_routing','mpich_selection',2048,32,1024,NULL,NULL,NULL,3.58540987133251169011e-03,'ok',0);
INSERT INTO "results" VALUES(4,'tuna_2048_routing','tuna',2048,32,16,2,NULL,NULL,1.73988780804357749025e-04,'ok',0);
INSERT INTO "results" VALUES(4,'tuna_2048_routing','tuna',2048,32,16,45,NULL,NULL,4.47994111290583147365e-04,'ok',0);
INSERT INTO "results" VALUES(4,'tuna_2048_routing','tuna',2048,32,16,2048,NULL,NULL,4.38544626187797707828e-03,'ok',0);
INSERT INTO "results" VALUES(4,'tuna_2048_routing','tuna',2048,32,1024,2,NULL,NULL,6.49046759532095202116e-03,'ok',0);
INSERT INTO "results" VALUES(4,'tuna_2048_routing','tuna',2048,32,1024,45,NULL,NULL,3.08867774297398459473e-03,'ok',0);
INSERT INTO "results" VALUES(4,'tuna_2048_routing','tuna',2048,32,1024,2048,NULL,NULL,5.51576584704544653492e-03,'ok',0);
CREATE TABLE runs(
  id INT,
  backend TEXT,
  platform TEXT,
  platform_sha256 TEXT,
  smpi_options TEXT,
  network_model TEXT
);
INSERT INTO "runs" VALUES(1,'model','theta.xml','154b36824e6ffd00a81587163202c7006c921640605ed1f36671d475c6858c51','model: a2atrace + cost model; nodes=384 cores=64 links=1728 loopback=200GB/s,0.1us shared topology=routes bw-factor=0:0.95 lat-factor=0:1 os=0:3e-07:0 or=0:3e-07:0 ois=0:2e-07:0 detached-below=8192 weight-S=0 allreduce=rdb ranks-per-node=64 timing=clocks; copy-model=none','{"network/model": ["SMPI", "smpirun"], "smpi/os": ["0:3e-07:0", "platform"], "smpi/or": ["0:3e-07:0", "platform"], "smpi/ois": ["0:2e-07:0", "platform"], "smpi/bw-factor": ["0:0.95", "platform"], "smpi/lat-factor": ["0:1", "platform"], "smpi/async-small-thresh": ["0", "platform"], "smpi/send-is-detached-thresh": ["8192", "platform"], "network/weight-S": ["0", "platform"], "network/TCP-gamma": ["4194304", "platform"], "network/crosstraffic": ["no", "platform"], "intra-node": ["a memory link per node, 200GBps 0.1us, shared by the node''s flows", "platform"]}');
INSERT INTO "runs" VALUES(2,'model','theta.xml','154b36824e6ffd00a81587163202c7006c921640605ed1f36671d475c6858c51','model: a2atrace + cost model; nodes=384 cores=64 links=1728 loopback=200GB/s,0.1us shared topology=routes bw-factor=0:0.95 lat-factor=0:1 os=0:3e-07:0 or=0:3e-07:0 ois=0:2e-07:0 detached-below=8192 weight-S=0 routing=adaptive allreduce=rdb ranks-per-node=64 timing=clocks; copy-model=none','{"network/model": ["SMPI", "smpirun"], "smpi/os": ["0:3e-07:0", "platform"], "smpi/or": ["0:3e-07:0", "platform"], "smpi/ois": ["0:2e-07:0", "platform"], "smpi/bw-factor": ["0:0.95", "platform"], "smpi/lat-factor": ["0:1", "platform"], "smpi/async-small-thresh": ["0", "platform"], "smpi/send-is-detached-thresh": ["8192", "platform"], "network/weight-S": ["0", "platform"], "network/TCP-gamma": ["4194304", "platform"], "network/crosstraffic": ["no", "platform"], "intra-node": ["a memory link per node, 200GBps 0.1us, shared by the node''s flows", "platform"]}');
INSERT INTO "runs" VALUES(3,'model','polaris.xml','f725ba07433b1a7322312ce185a6020feb5fd7249432ed3151c0b2d67dc5f893','model: a2atrace + cost model; nodes=512 cores=32 links=1276 loopback=102.4GB/s,0.1us shared topology=routes bw-factor=0:0.95 lat-factor=0:1 os=0:3e-07:0 or=0:3e-07:0 ois=0:2e-07:0 detached-below=65536 weight-S=0 allreduce=rdb ranks-per-node=32 timing=clocks; copy-model=none','{"network/model": ["SMPI", "smpirun"], "smpi/os": ["0:3e-07:0", "platform"], "smpi/or": ["0:3e-07:0", "platform"], "smpi/ois": ["0:2e-07:0", "platform"], "smpi/bw-factor": ["0:0.95", "platform"], "smpi/lat-factor": ["0:1", "platform"], "smpi/async-small-thresh": ["0", "platform"], "smpi/send-is-detached-thresh": ["65536", "platform"], "network/weight-S": ["0", "platform"], "network/TCP-gamma": ["4194304", "platform"], "network/crosstraffic": ["no", "platform"], "intra-node": ["a memory link per node, 102.4GBps 0.1us, shared by the node''s flows", "platform"]}');
INSERT INTO "runs" VALUES(4,'model','polaris.xml','f725ba07433b1a7322312ce185a6020feb5fd7249432ed3151c0b2d67dc5f893','model: a2atrace + cost model; nodes=512 cores=32 links=1276 loopback=102.4GB/s,0.1us shared topology=routes bw-factor=0:0.95 lat-factor=0:1 os=0:3e-07:0 or=0:3e-07:0 ois=0:2e-07:0 detached-below=65536 weight-S=0 routing=adaptive allreduce=rdb ranks-per-node=32 timing=clocks; copy-model=none','{"network/model": ["SMPI", "smpirun"], "smpi/os": ["0:3e-07:0", "platform"], "smpi/or": ["0:3e-07:0", "platform"], "smpi/ois": ["0:2e-07:0", "platform"], "smpi/bw-factor": ["0:0.95", "platform"], "smpi/lat-factor": ["0:1", "platform"], "smpi/async-small-thresh": ["0", "platform"], "smpi/send-is-detached-thresh": ["65536", "platform"], "network/weight-S": ["0", "platform"], "network/TCP-gamma": ["4194304", "platform"], "network/crosstraffic": ["no", "platform"], "intra-node": ["a memory link per node, 102.4GBps 0.1us, shared by the node''s flows", "platform"]}');
COMMIT;
