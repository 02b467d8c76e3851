// Pages agents the way Relay's usePaginationFragment does, with Relay's own
// runtime and no React: artifacts relay-compiler made from src/AgentList.js,
// a relay-runtime Environment whose store merges pages through Relay's
// connection handler. It registers agents, loads a page after a cursor in the
// middle, then the next page (loadNext) and the page before the first
// (loadPrevious), and exits non-zero unless the connection holds exactly the
// server's rows in the server's order, with the page info Relay relies on.
// Environment: URL (http://host:port/graphql), API_KEY.
'use strict';
const {
  Environment, Network, RecordSource, Store, fetchQuery, createOperationDescriptor, getSelector,
} = require('relay-runtime');
const PaginationQuery = require('./src/__generated__/AgentListPaginationQuery.graphql');
const Fragment = require('./src/__generated__/AgentList_query.graphql');

const url = process.env.URL ?? 'http://127.0.0.1:8080/graphql';
const key = process.env.API_KEY;
if (!key) {
  console.error('relaycheck: set API_KEY');
  process.exit(2);
}

async function post(query, variables) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` },
    body: JSON.stringify({ query, variables }),
  });
  const body = await res.json();
  if (body.errors) throw new Error(`${query.slice(0, 40)}: ${JSON.stringify(body.errors)}`);
  return body;
}

const environment = new Environment({
  network: Network.create((params, variables) => post(params.text, variables)),
  store: new Store(new RecordSource()),
});

// load fetches the pagination query (Relay's own loadNext/loadPrevious
// query) and reads the fragment back from the store: the merged connection.
async function load(variables) {
  const vars = { first: null, after: null, last: null, before: null, ...variables };
  await fetchQuery(environment, PaginationQuery, vars).toPromise();
  const operation = createOperationDescriptor(PaginationQuery, vars);
  const root = environment.lookup(operation.fragment).data;
  return environment.lookup(getSelector(Fragment, root)).data.agents;
}

function check(what, ok, detail) {
  if (!ok) {
    console.error(`relaycheck: ${what}: ${JSON.stringify(detail)}`);
    process.exit(1);
  }
}

async function main() {
  const stamp = Date.now();
  for (let i = 0; i < 8; i++) {
    await post('mutation($in: RegisterAgentInput!) { registerAgent(input: $in) { id } }', {
      in: { name: `relaycheck-${stamp}-${i}`, authorizedActions: ['purchase'], spendingLimit: '10', currency: 'USD', environment: 'sandbox' },
    });
  }
  const all = (await post('{ agents(first: 8) { edges { cursor node { id } } } }')).data.agents.edges;
  const ids = all.map((e) => e.node.id);

  let conn = await load({ first: 2, after: all[1].cursor });
  check('first page', String(conn.edges.map((e) => e.node.id)) === String(ids.slice(2, 4)), conn);
  check('first page has a page before it', conn.pageInfo.hasPreviousPage && conn.pageInfo.hasNextPage, conn.pageInfo);

  conn = await load({ first: 2, after: conn.pageInfo.endCursor }); // loadNext(2)
  check('after loadNext', String(conn.edges.map((e) => e.node.id)) === String(ids.slice(2, 6)), conn.edges);

  conn = await load({ last: 2, before: conn.pageInfo.startCursor }); // loadPrevious(2)
  const got = conn.edges.map((e) => e.node.id);
  check('after loadPrevious', String(got) === String(ids.slice(0, 6)), got);
  check('after loadPrevious, at the head', !conn.pageInfo.hasPreviousPage, conn.pageInfo);
  console.log(`relaycheck: ok: ${got.length} agents over two pages forwards and one backwards`);
}

main().catch((err) => {
  console.error(`relaycheck: ${err.stack ?? err}`);
  process.exit(1);
});
