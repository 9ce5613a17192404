// Runs fauxqs (SQS, JSON protocol) on 127.0.0.1 only: its startFauxqs helper
// always listens on 0.0.0.0, so this builds the same app and binds loopback.
import { buildApp } from "./node_modules/fauxqs/dist/app.js";
import { SqsStore } from "./node_modules/fauxqs/dist/sqs/sqsStore.js";
import { SnsStore } from "./node_modules/fauxqs/dist/sns/snsStore.js";
import { S3Store } from "./node_modules/fauxqs/dist/s3/s3Store.js";

const port = parseInt(process.env.FAUXQS_PORT ?? "4566", 10);
// Queue URLs are built from the request's Host header (127.0.0.1:PORT), so
// each is a URL of this emulator: http://127.0.0.1:PORT/000000000000/NAME.
// fauxqs's `host` option would give sqs.REGION.HOST:PORT instead (and a
// host that holds the port already doubles it); an empty store host turns
// that off, and buildApp only sets a non-empty one.
const sqsStore = new SqsStore();
sqsStore.host = "";
const app = buildApp({
  logger: false,
  stores: { sqsStore, snsStore: new SnsStore(), s3Store: new S3Store() },
});
await app.listen({ port, host: "127.0.0.1" });
console.log(`fauxqs listening on 127.0.0.1:${port}`);
