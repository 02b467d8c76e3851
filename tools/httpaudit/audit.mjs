// Runs graphql-http's server audits against URL (default
// http://127.0.0.1:8080/graphql) with the API key in API_KEY; exits 1 on a
// failed MUST.
import { serverAudits } from 'graphql-http';

const url = process.env.URL || 'http://127.0.0.1:8080/graphql';
const key = process.env.API_KEY;
if (!key) {
  console.error('set API_KEY to a key of the running service');
  process.exit(2);
}
const fetchFn = (input, init = {}) => {
  const headers = new Headers(init.headers || {});
  headers.set('Authorization', `Bearer ${key}`);
  return fetch(input, { ...init, headers });
};
const counts = { ok: 0, notice: 0, warn: 0, error: 0 };
for (const audit of serverAudits({ url, fetchFn })) {
  const r = await audit.fn();
  counts[r.status]++;
  if (r.status !== 'ok') console.log(r.status.toUpperCase(), audit.name, '-', r.reason);
}
console.log(`${counts.ok} ok, ${counts.notice} notices, ${counts.warn} warnings, ${counts.error} errors`);
process.exit(counts.error > 0 ? 1 : 0);
