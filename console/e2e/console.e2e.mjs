// Drives the console in headless Chromium (playwright-core, the system's
// Chromium) against a running service; run by httpapi/console's Go tests,
// which start the service. Prints one line per flow: "PASS flow" or
// "FAIL flow: why"; and "METRIC name value" in benchmark mode (BENCH=1).
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const here = path.dirname(fileURLToPath(import.meta.url));
const base = process.env.CONSOLE_URL;
const adminKey = process.env.ADMIN_KEY;
const hookURL = process.env.WEBHOOK_URL;
const shots = process.env.SCREENSHOTS;
const axeSource = fs.readFileSync(path.join(here, "..", "node_modules", "axe-core", "axe.min.js"), "utf8");
const origin = new URL(base).origin;
const wsOrigin = origin.replace(/^http/, "ws");

// gql runs one GraphQL operation as key and returns data, throwing on errors.
async function gql(key, query, variables = {}) {
  const res = await fetch(`${base}/graphql`, {
    method: "POST",
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
    body: JSON.stringify({ query, variables }),
  });
  const body = await res.json();
  if (body.errors?.length) throw new Error(`${query.slice(0, 60)}…: ${JSON.stringify(body.errors)}`);
  return body.data;
}

let seq = 0;
async function registerAgent(name, extra = {}) {
  const d = await gql(
    adminKey,
    `mutation($in: RegisterAgentInput!) { registerAgent(input: $in) { id name } }`,
    { in: { name: `${name}-${++seq}`, authorizedActions: ["purchase"], spendingLimit: 1000, currency: "USD", environment: "sandbox", ...extra } },
  );
  return d.registerAgent;
}

const launchArgs = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"];
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM, headless: true, args: launchArgs });

// newPage opens a context whose every request and CSP report is watched.
async function newPage(viewport = { width: 1280, height: 900 }) {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  page.problems = [];
  page.frames_sent = [];
  page.on("request", (r) => {
    const u = r.url();
    if (!u.startsWith(origin) && !u.startsWith(wsOrigin) && !u.startsWith("data:")) page.problems.push(`request outside the origin: ${u}`);
  });
  page.on("console", (m) => {
    if (/Content Security Policy|Refused to/i.test(m.text())) page.problems.push(`CSP: ${m.text()}`);
  });
  page.on("pageerror", (e) => page.problems.push(`page error: ${e.message}`));
  page.on("websocket", (ws) => ws.on("framesent", (f) => page.frames_sent.push(String(f.payload))));
  current = page;
  return page;
}

async function axe(page, name) {
  await page.evaluate(axeSource);
  const r = await page.evaluate(() => window.axe.run(document, { resultTypes: ["violations"] }));
  const bad = r.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  if (bad.length) throw new Error(`axe on ${name}: ${bad.map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(" ")).slice(0, 3).join(", ")}`).join("; ")}`);
}

async function shot(page, name) {
  if (shots) await page.screenshot({ path: path.join(shots, `${name}.png`), fullPage: true });
}

function clean(page) {
  if (page.problems.length) throw new Error(page.problems.join("; "));
}

async function go(page, hash) {
  await page.evaluate((h) => (location.hash = h), hash);
}

async function signIn(page, key) {
  await page.goto(`${base}/console`);
  await page.getByLabel("API key").fill(key);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("navigation", { name: "Pages", exact: true }).waitFor();
}

async function until(what, fn, ms = 15000) {
  const end = Date.now() + ms;
  for (;;) {
    try {
      if (await fn()) return;
    } catch {}
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

const only = process.env.FLOWS ? process.env.FLOWS.split(",") : null;
let current = null; // the page a failing flow leaves a screenshot of

async function flow(name, fn) {
  if (only && !only.includes(name)) return;
  try {
    await fn();
    console.log(`PASS ${name}`);
  } catch (e) {
    console.log(`FAIL ${name}: ${String(e?.message ?? e).replace(/\n/g, " ")}`);
    if (shots && current) await current.screenshot({ path: path.join(shots, `failed-${name}.png`), fullPage: true }).catch(() => {});
  }
}

if (process.env.BENCH) {
  await bench();
} else {
  await flows();
}
await browser.close();

async function flows() {
  const page = await newPage();

  await flow("sign-in", async () => {
    await page.goto(`${base}/console`);
    await axe(page, "sign-in");
    await shot(page, "sign-in");
    await page.getByLabel("API key").fill("att_sk_not_a_key");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("alert").filter({ hasText: "UNAUTHENTICATED" }).waitFor();
    await signIn(page, adminKey);
    const stored = await page.evaluate(() => ({ s: JSON.stringify(sessionStorage), l: localStorage.length, u: location.href }));
    if (!stored.s.includes(adminKey)) throw new Error("the key is not in sessionStorage");
    if (stored.l !== 0) throw new Error("localStorage holds something");
    if (stored.u.includes(adminKey)) throw new Error("the key is in the URL");
    clean(page);
  });

  await flow("overview", async () => {
    await go(page, "#/overview");
    await page.getByRole("heading", { name: "Overview" }).waitFor();
    const table = page.getByRole("table", { name: "Agents by status" });
    await table.waitFor();
    const count = async () => Number(await table.getByRole("row", { name: /active/ }).getByRole("cell").innerText());
    const before = await count();
    await registerAgent("overview");
    await until("the overview to count the new agent", async () => (await count()) === before + 1);
    await axe(page, "overview");
    await shot(page, "overview");
    clean(page);
  });

  let shopper;
  await flow("agents", async () => {
    await go(page, "#/agents");
    await page.getByRole("heading", { name: "Agents" }).waitFor();
    await page.getByRole("table").waitFor();
    shopper = await registerAgent("shopper");
    const row = page.getByRole("row", { name: new RegExp(shopper.name) });
    await row.waitFor({ timeout: 15000 }); // live: no reload
    await page.getByLabel("Search by name").fill(shopper.name);
    await until("the search to keep one agent", async () => (await page.locator("table.agents tbody tr").count()) === 1);
    await row.getByRole("button", { name: `Suspend ${shopper.name}` }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByLabel("Reason (optional)").fill("console test");
    await dialog.getByRole("button", { name: "Suspend" }).click();
    await row.getByText("suspended").waitFor();
    await page.getByLabel("Status").selectOption("suspended");
    await row.waitFor();
    await page.getByLabel("Status").selectOption("");
    await page.getByLabel("Search by name").fill("");
    await axe(page, "agents");
    await row.getByRole("button", { name: `Reinstate ${shopper.name}` }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Reinstate" }).click();
    await row.getByText("active", { exact: true }).waitFor();
    await shot(page, "agents");
    clean(page);
  });

  await flow("live-feed", async () => {
    await go(page, "#/live");
    await page.getByRole("heading", { name: "Live feed" }).waitFor();
    await until("the subscription to open", async () => page.frames_sent.some((f) => f.includes('"subscribe"') && f.includes("LiveFeedPageSubscription")));
    const a = await registerAgent("live");
    await page.locator("ol.feed li", { hasText: a.id }).first().waitFor({ timeout: 15000 });
    const lastId = await page.locator("ol.feed li").first().getAttribute("data-event-id");
    page.frames_sent.length = 0;
    await page.getByRole("button", { name: "Reconnect" }).click();
    await until("a resubscription after the last event", async () =>
      page.frames_sent.some((f) => f.includes("LiveFeedPageSubscription") && f.includes(`"after":"${lastId}"`)),
    );
    const b = await registerAgent("live");
    await page.locator("ol.feed li", { hasText: b.id }).first().waitFor({ timeout: 15000 });
    const ids = await page.locator("ol.feed li").evaluateAll((els) => els.map((e) => e.getAttribute("data-event-id")));
    if (new Set(ids).size !== ids.length) throw new Error(`an event is shown twice: ${ids}`);
    await page.getByLabel("agent.suspended").check();
    await until("the filter to hide other types", async () =>
      (await page.locator("ol.feed li strong").allInnerTexts()).every((t) => t === "agent.suspended"),
    );
    await page.getByLabel("agent.suspended").uncheck();
    await axe(page, "live feed");
    await shot(page, "live-feed");
    clean(page);
  });

  await flow("live-feed-resync", async () => {
    // The server closes a subscriber that fell too far behind with 4420; a
    // routed websocket lets the test close the page's socket that way.
    const p = await newPage();
    let socket = null;
    const sent = [];
    await p.routeWebSocket(/\/graphql$/, (ws) => {
      const server = ws.connectToServer();
      ws.onMessage((m) => {
        sent.push(String(m));
        server.send(m);
      });
      socket = ws;
    });
    await signIn(p, adminKey);
    await go(p, "#/live");
    await p.getByRole("heading", { name: "Live feed" }).waitFor();
    await until("the subscription to open", async () => sent.some((f) => f.includes('"subscribe"') && f.includes("LiveFeedPageSubscription")));
    const a = await registerAgent("resync");
    await p.locator("ol.feed li", { hasText: a.id }).first().waitFor({ timeout: 15000 });
    const lastId = await p.locator("ol.feed li").first().getAttribute("data-event-id");
    await socket.close({ code: 4420, reason: `slow consumer: resubscribe with after ${lastId}` });
    await p.getByText(`Fell too far behind the live stream: resyncing after ${lastId}`).waitFor();
    await p.getByText(`Reconnected: resumed after ${lastId}`).waitFor({ timeout: 20000 });
    await until("the resubscription to pass after", async () =>
      sent.some((f) => f.includes("LiveFeedPageSubscription") && f.includes(`"after":"${lastId}"`)),
    );
    const b = await registerAgent("resync");
    await p.locator("ol.feed li", { hasText: b.id }).first().waitFor({ timeout: 15000 });
    const ids = await p.locator("ol.feed li").evaluateAll((els) => els.map((e) => e.getAttribute("data-event-id")));
    if (new Set(ids).size !== ids.length) throw new Error(`an event is shown twice after the resync: ${ids}`);
    clean(p);
    await p.context().close();
  });

  await flow("agent", async () => {
    const a = shopper ?? (await registerAgent("shopper"));
    const shop = await registerAgent("shop");
    for (const amount of [120, 80.5]) {
      await gql(adminKey, `mutation($in: ExecuteTransactionInput!) { executeTransaction(input: $in) { id } }`, {
        in: { fromAgent: a.id, toAgent: shop.id, action: "purchase", amount, currency: "USD" },
      });
    }
    await go(page, `#/agents/${a.id}`);
    await page.getByRole("heading", { name: "Transactions (2)" }).waitFor();
    await page.getByRole("heading", { name: a.name, level: 1 }).waitFor();
    await page.getByRole("button", { name: "Verify fingerprint and audit chain" }).click();
    await page.getByTestId("verify-result").filter({ hasText: "Fingerprint verified; audit chain valid" }).waitFor();
    // The trust chart renders with points: a canvas, and its table of changes.
    await page.locator("#trust ~ * .uplot canvas, section[aria-labelledby=trust] .uplot canvas").first().waitFor();
    const changes = await page.getByTestId("trust-history").locator("tbody tr").count();
    if (changes < 3) throw new Error(`trust history has ${changes} changes, want registration, suspension, reinstatement`);
    await page.getByTestId("audit-chain").getByText("agent.suspended").waitFor();
    // Mandates: create one, then revoke it.
    await page.getByText("Create a mandate").click();
    await page.getByLabel("Description").fill("console test mandate");
    await page.getByLabel("Actions (comma-separated)").fill("purchase");
    await page.getByLabel("Budget").fill("75.50");
    await page.getByRole("button", { name: "Create mandate" }).click();
    const m = page.getByRole("row", { name: /console test mandate/ });
    await m.getByText("active").waitFor();
    await m.getByRole("button", { name: /Revoke mandate/ }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Revoke" }).click();
    await m.getByText("revoked").waitFor();
    await axe(page, "agent");
    await shot(page, "agent");
    clean(page);
  });

  await flow("agent-policy", async () => {
    // Needs Agent.policyUsage and simulatePolicy.
    const a = shopper ?? (await registerAgent("shopper"));
    await go(page, `#/agents/${a.id}`);
    await page.getByText("The policy sets no windows.").waitFor(); // policyUsage answered
    await page.getByText("Edit the policy").click();
    await page.getByRole("button", { name: "Add a spend limit" }).click();
    const amounts = page.getByLabel("Amount", { exact: true });
    await amounts.last().fill("700");
    await page.getByLabel("Window").last().selectOption("week");
    await page.getByRole("button", { name: /What if/ }).click();
    await page.getByTestId("what-if").getByText(/Replayed \d+/).waitFor();
    await axe(page, "agent policy what-if");
    await shot(page, "agent-policy");
    // A stale edit says so: the policy changes under the form.
    await gql(adminKey, `mutation($id: ID!) { setAgentPolicy(agentId: $id, input: { minCounterpartyScore: 1 }) { id } }`, { id: a.id });
    await page.getByRole("button", { name: /Save policy/ }).click();
    await page.getByText("Stale edit").waitFor();
    await page.getByRole("button", { name: "Load the current policy" }).click();
    await page.getByText("Edit the policy").click().catch(() => {});
    await page.getByRole("button", { name: "Add a spend limit" }).click();
    await page.getByLabel("Amount", { exact: true }).last().fill("700");
    await page.getByLabel("Window").last().selectOption("week");
    await page.getByRole("button", { name: /What if/ }).click();
    await page.getByTestId("what-if").waitFor();
    await page.getByRole("button", { name: /Save policy/ }).click();
    await page.getByText(/Saved version \d+\. New fingerprint/).waitFor();
    await page.getByTestId("audit-chain").getByText("agent.policy_changed").first().waitFor();
    await page.getByTestId("usage").getByRole("row", { name: /week/ }).waitFor();
    await axe(page, "agent policy");
    clean(page);
  });

  await flow("agent-spend", async () => {
    // Needs spendSeries.
    const a = shopper ?? (await registerAgent("shopper"));
    await go(page, `#/agents/${a.id}`);
    await page.getByTestId("spend-total").filter({ hasText: "2 completed transactions, 200.5 USD" }).waitFor();
    await page.locator("section[aria-labelledby=spend] .uplot canvas").waitFor();
    await page.getByLabel("Range").selectOption({ label: "Last 30 days, by day" });
    await page.getByTestId("spend-total").filter({ hasText: /in 3[01] buckets/ }).waitFor();
    clean(page);
  });

  await flow("approvals", async () => {
    const from = await registerAgent("payer");
    const to = await registerAgent("payee");
    await gql(adminKey, `mutation($id: ID!) { setAgentPolicy(agentId: $id, input: { approval: { above: 10, expiresAfterSeconds: 3600 } }) { id } }`, { id: from.id });
    const exec = async (amount) =>
      (
        await gql(adminKey, `mutation($in: ExecuteTransactionInput!) { executeTransaction(input: $in) { id status } }`, {
          in: { fromAgent: from.id, toAgent: to.id, action: "purchase", amount, currency: "USD" },
        })
      ).executeTransaction;
    // Requested as the page opens, between its read and its subscription's
    // start or after both: either way the row shows without a reload.
    await go(page, "#/approvals");
    const t1 = await exec(50);
    await page.getByRole("heading", { name: "Approvals" }).waitFor();
    await page.getByRole("table").waitFor();
    if (t1.status !== "pending_approval") throw new Error(`execute over the threshold: ${t1.status}`);
    const row1 = page.getByRole("row", { name: new RegExp(t1.id) });
    await row1.waitFor({ timeout: 15000 }); // live
    await row1.getByText(/\d+m \d+s|\d+h \d+m/).waitFor(); // the countdown
    await axe(page, "approvals");
    await shot(page, "approvals");
    await row1.getByRole("button", { name: `Approve ${t1.id}` }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Approve" }).click();
    await row1.waitFor({ state: "detached" });
    const done = await gql(adminKey, `query($id: ID!) { transaction(id: $id) { status } }`, { id: t1.id });
    if (done.transaction.status !== "completed") throw new Error(`approved transaction is ${done.transaction.status}`);
    // An approval that fails a check shows the refusal's code and reason.
    const t2 = await exec(60);
    const row2 = page.getByRole("row", { name: new RegExp(t2.id) });
    await row2.waitFor({ timeout: 15000 });
    await gql(adminKey, `mutation($id: ID!) { suspendAgent(id: $id) { id } }`, { id: from.id });
    await row2.getByRole("button", { name: `Approve ${t2.id}` }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByRole("button", { name: "Approve" }).click();
    await dialog.getByRole("alert").filter({ hasText: "POLICY_DENIED" }).filter({ hasText: "agent_suspended" }).waitFor();
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await row2.getByRole("button", { name: `Decline ${t2.id}` }).click();
    await page.getByRole("dialog").getByLabel("Reason").fill("not now");
    await page.getByRole("dialog").getByRole("button", { name: "Decline" }).click();
    await row2.waitFor({ state: "detached" });
    clean(page);
  });

  await flow("webhooks", async () => {
    const reg = await gql(adminKey, `mutation($in: RegisterWebhookInput!) { registerWebhook(input: $in) { id } }`, { in: { url: hookURL, events: ["*"] } });
    const wid = reg.registerWebhook.id;
    await registerAgent("hooked"); // an event to deliver
    await go(page, "#/webhooks");
    const panel = page.getByRole("region", { name: hookURL });
    await panel.waitFor();
    const attempts = () => panel.locator("tbody tr").filter({ hasText: "agent.registered" }).count();
    await until("a delivery attempt", async () => {
      await panel.getByRole("button", { name: "Refresh attempts" }).click();
      return (await attempts()) >= 1;
    });
    const before = await attempts();
    await panel.getByRole("button", { name: /^Redeliver / }).first().click();
    await panel.getByText(/Redelivery of evt_\S+ queued/).waitFor();
    await until("the redelivery's new attempt", async () => {
      await panel.getByRole("button", { name: "Refresh attempts" }).click();
      return (await attempts()) > before;
    });
    await panel.getByRole("button", { name: "Send test" }).click();
    await panel.getByText(/Test delivery: succeeded, HTTP 2\d\d/).waitFor();
    await panel.getByRole("button", { name: "Rotate secret" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Rotate secret" }).click();
    const secret = await panel.getByTestId("webhook-secret").innerText();
    if (!secret.startsWith("whsec_")) throw new Error(`rotated secret shown as ${secret}`);
    await panel.getByRole("button", { name: "Disable" }).click();
    await panel.getByText("disabled", { exact: true }).waitFor();
    await axe(page, "webhooks");
    await shot(page, "webhooks");
    await panel.getByRole("button", { name: "Enable" }).click();
    await panel.getByText("enabled", { exact: true }).waitFor();
    if (!wid.startsWith("wh_")) throw new Error(`webhook id ${wid}`);
    clean(page);
  });

  let readonlySecret;
  await flow("keys", async () => {
    await go(page, "#/keys");
    await page.getByRole("heading", { name: "Keys" }).waitFor();
    await page.getByLabel("Name").fill("console dashboard");
    await page.getByLabel("Role").selectOption("readonly");
    await page.getByRole("button", { name: "Create key" }).click();
    readonlySecret = await page.getByTestId("key-secret").innerText();
    if (!readonlySecret.startsWith("att_sk_")) throw new Error(`new key's secret shown as ${readonlySecret}`);
    await page.getByRole("row", { name: /console dashboard/ }).waitFor();
    await page.getByLabel("Name").fill("throwaway");
    await page.getByRole("button", { name: "Create key" }).click();
    const row = page.getByRole("row", { name: /throwaway/ });
    await row.waitFor();
    await axe(page, "keys");
    await shot(page, "keys");
    await row.getByRole("button", { name: "Revoke throwaway" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Revoke" }).click();
    await row.getByText(/revoked/).waitFor();
    clean(page);
  });

  await flow("roles", async () => {
    const agent = await registerAgent("keyed");
    const ro = readonlySecret ?? (await gql(adminKey, `mutation { createApiKey(input: { name: "ro", role: readonly }) { secret } }`)).createApiKey.secret;
    const ak = (await gql(adminKey, `mutation($a: [ID!]) { createApiKey(input: { name: "agent key", role: agent, agentIds: $a }) { secret } }`, { a: [agent.id] })).createApiKey.secret;
    for (const [role, key] of [["readonly", ro], ["agent", ak]]) {
      const p = await newPage();
      await signIn(p, key);
      if (await p.getByRole("link", { name: "Keys", exact: true }).count()) throw new Error(`${role} key is offered key management`);
      if (role === "agent" && (await p.getByRole("link", { name: "Overview", exact: true }).count())) throw new Error("an agent key is offered the overview it may not read");
      await go(p, "#/agents");
      await p.getByRole("row", { name: new RegExp(agent.name) }).waitFor();
      if (await p.getByRole("button", { name: /^(Suspend|Reinstate) / }).count()) throw new Error(`${role} key is offered suspend`);
      await go(p, "#/webhooks");
      await p.getByRole("heading", { name: "Webhooks" }).waitFor();
      await p.waitForTimeout(300);
      if (await p.getByRole("button", { name: /Send test|Rotate secret|Disable|Redeliver/ }).count()) throw new Error(`${role} key is offered webhook mutations`);
      await go(p, `#/agents/${agent.id}`);
      await p.getByRole("heading", { name: agent.name, level: 1 }).waitFor();
      if (await p.getByText("Edit the policy").count()) throw new Error(`${role} key is offered a policy edit`);
      if (await p.getByText("Create a mandate").count()) throw new Error(`${role} key is offered mandates`);
      await go(p, "#/approvals");
      await p.getByRole("heading", { name: "Approvals" }).waitFor();
      if (await p.getByRole("button", { name: /^(Approve|Decline) / }).count()) throw new Error(`${role} key is offered approvals`);
      clean(p);
      await p.context().close();
    }
  });

  await flow("keyboard", async () => {
    await registerAgent("keyboard");
    const p = await newPage();
    await p.goto(`${base}/console`);
    await p.getByLabel("API key").waitFor();
    await p.keyboard.press("Tab");
    if ((await p.evaluate(() => document.activeElement?.id)) !== "api-key") throw new Error("Tab does not reach the API key field first");
    await p.keyboard.type(adminKey);
    await p.keyboard.press("Enter");
    await p.getByRole("navigation", { name: "Pages", exact: true }).waitFor();
    await go(p, "#/agents");
    await p.locator("table.agents tbody tr").first().waitFor();
    let label = "";
    for (let i = 0; i < 200 && !label.startsWith("Suspend "); i++) {
      await p.keyboard.press("Tab");
      label = (await p.evaluate(() => document.activeElement?.getAttribute("aria-label") ?? "")) || "";
    }
    if (!label.startsWith("Suspend ")) throw new Error("Tab never reaches a Suspend button");
    const outline = await p.evaluate(() => getComputedStyle(document.activeElement).outlineStyle);
    if (outline === "none") throw new Error("the focused button shows no focus ring");
    await p.keyboard.press("Enter");
    await p.getByRole("dialog").waitFor();
    if (!(await p.evaluate(() => !!document.activeElement?.closest("dialog")))) throw new Error("focus does not move into the dialog");
    await p.keyboard.press("Escape");
    await p.getByRole("dialog").waitFor({ state: "detached" });
    const back = await p.evaluate(() => document.activeElement?.getAttribute("aria-label"));
    if (back !== label) throw new Error(`after Escape focus is on ${back}, not ${label}`);
    clean(p);
    await p.context().close();
  });

  await flow("phone", async () => {
    const p = await newPage({ width: 390, height: 844 });
    await signIn(p, adminKey);
    await go(p, "#/agents");
    await p.locator("table.agents tbody tr").first().waitFor();
    const overflow = await p.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    if (overflow > 1) throw new Error(`the page is ${overflow}px wider than a phone`);
    await axe(p, "agents on a phone");
    await shot(p, "agents-phone");
    clean(p);
    await p.context().close();
  });
}

// bench: with the organization's agents registered by the caller, the time
// from navigation to the agents page's first rows, over ROUNDS runs.
async function bench() {
  const rounds = Number(process.env.ROUNDS || 5);
  const times = [];
  for (let i = 0; i < rounds; i++) {
    const p = await newPage();
    await p.addInitScript((k) => sessionStorage.setItem("agenttrust.console.apiKey", k), adminKey);
    const marks = [];
    p.on("response", (r) => marks.push(`${r.url().replace(base, "")} ${r.request().postDataJSON()?.operationName ?? ""} ${Date.now() - t0}ms`));
    const t0 = Date.now();
    await p.goto(`${base}/console#/agents`);
    await p.locator("table.agents tbody tr").nth(49).waitFor();
    times.push(Date.now() - t0);
    if (process.env.BENCH_TRACE) console.error(marks.join("\n"), `rows ${Date.now() - t0}ms`);
    const total = await p.locator(".summary").innerText();
    if (!/^1000 agents/.test(total)) throw new Error(`the page says ${total}`);
    await p.context().close();
  }
  times.sort((a, b) => a - b);
  console.log(`METRIC first-render-ms ${times[Math.floor(times.length / 2)]}`);
  console.log(`METRIC first-render-max-ms ${times[times.length - 1]}`);
}
