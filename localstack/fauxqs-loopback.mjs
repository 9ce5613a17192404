// Runs fauxqs (SQS, JSON protocol) on 127.0.0.1 only: its startFauxqs helper
// always listens on 0.0.0.0, so this builds the same app and binds loopback.
import { buildApp } from "./node_modules/fauxqs/dist/app.js";
import { SqsStore } from "./node_modules/fauxqs/dist/sqs/sqsStore.js";
import { SnsStore } from "./node_modules/fauxqs/dist/sns/snsStore.js";
import { S3Store } from "./node_modules/fauxqs/dist/s3/s3Store.js";

const port = parseInt(process.env.FAUXQS_PORT ?? "4566", 10);
const app = buildApp({
  logger: false,
  host: `127.0.0.1:${port}`,
  stores: { sqsStore: new SqsStore(), snsStore: new SnsStore(), s3Store: new S3Store() },
});
await app.listen({ port, host: "127.0.0.1" });
console.log(`fauxqs listening on 127.0.0.1:${port}`);
