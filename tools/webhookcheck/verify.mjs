// Verifies webhook deliveries recorded by the Go test (webhook/delivery,
// TestNodeVerifiesDeliveries) with the standardwebhooks npm package.
// Input: a JSON file of [{secrets: [..], headers: {..}, body: "<raw body>"}].
// Every delivery must verify under every listed secret; a tampered copy of
// each must not. Exits non-zero, naming the delivery, on the first failure.
import { readFileSync } from "node:fs";
import { Webhook } from "standardwebhooks";

const deliveries = JSON.parse(readFileSync(process.argv[2], "utf8"));
if (!Array.isArray(deliveries) || deliveries.length === 0) {
  console.error("webhookcheck: no deliveries to verify");
  process.exit(1);
}
let checked = 0;
for (const d of deliveries) {
  for (const secret of d.secrets) {
    const wh = new Webhook(secret);
    let payload;
    try {
      payload = wh.verify(d.body, d.headers);
    } catch (err) {
      console.error(`webhookcheck: ${d.headers["webhook-id"]} does not verify: ${err.message}`);
      process.exit(1);
    }
    if (payload.id !== d.headers["webhook-id"]) {
      console.error(`webhookcheck: body id ${payload.id} is not webhook-id ${d.headers["webhook-id"]}`);
      process.exit(1);
    }
    let forged = true;
    try {
      wh.verify(d.body.replace(/}$/, ' }'), d.headers);
    } catch {
      forged = false;
    }
    if (forged) {
      console.error(`webhookcheck: a tampered copy of ${d.headers["webhook-id"]} verifies`);
      process.exit(1);
    }
    checked++;
  }
}
console.log(`webhookcheck: ${deliveries.length} deliveries, ${checked} signatures verified with standardwebhooks`);
