import { graphql, usePaginationFragment } from "react-relay/hooks";
import type { Transactions_query$key } from "../../__generated__/Transactions_query.graphql";
import type { TransactionsPaginationQuery } from "../../__generated__/TransactionsPaginationQuery.graphql";
import { money, when } from "../../ui/format";

export function Transactions({ query }: { query: Transactions_query$key }) {
  const { data, loadNext, hasNext, isLoadingNext } = usePaginationFragment<TransactionsPaginationQuery, Transactions_query$key>(
    graphql`
      fragment Transactions_query on Query
      @refetchable(queryName: "TransactionsPaginationQuery")
      @argumentDefinitions(agentId: { type: "ID!" }, first: { type: "Int", defaultValue: 20 }, after: { type: "String" }) {
        transactions(agentId: $agentId, first: $first, after: $after) @connection(key: "Transactions_transactions", filters: ["agentId"]) {
          totalCount
          edges {
            node {
              id
              fromAgent
              toAgent
              action
              amount
              currency
              status
              reason
              createdAt
            }
          }
        }
      }
    `,
    query,
  );
  return (
    <section className="panel" aria-labelledby="transactions">
      <h2 id="transactions">Transactions ({data.transactions.totalCount})</h2>
      <div className="scroll">
        <table>
          <caption className="sr-only">Transactions where this agent is either party, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Transaction</th>
              <th scope="col">From</th>
              <th scope="col">To</th>
              <th scope="col">Action</th>
              <th scope="col" className="num">Amount</th>
              <th scope="col">Status</th>
              <th scope="col">When</th>
            </tr>
          </thead>
          <tbody>
            {data.transactions.edges.map(({ node: t }) => (
              <tr key={t.id}>
                <th scope="row">
                  <code>{t.id}</code>
                </th>
                <td>
                  <code>{t.fromAgent}</code>
                </td>
                <td>
                  <code>{t.toAgent}</code>
                </td>
                <td>{t.action}</td>
                <td className="num">{money(t.amount, t.currency)}</td>
                <td>
                  {t.status}
                  {t.reason && <div className="muted">{t.reason}</div>}
                </td>
                <td>{when(t.createdAt)}</td>
              </tr>
            ))}
            {data.transactions.edges.length === 0 && (
              <tr>
                <td colSpan={7}>No transactions.</td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
      {hasNext && (
        <button type="button" onClick={() => loadNext(20)} disabled={isLoadingNext}>
          {isLoadingNext ? "Loading…" : "Older transactions"}
        </button>
      )}
    </section>
  );
}
