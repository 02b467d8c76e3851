import { startTransition } from "react";
import { graphql, useLazyLoadQuery, usePaginationFragment } from "react-relay/hooks";
import type { ApprovalsPageQuery } from "../../__generated__/ApprovalsPageQuery.graphql";
import type { ApprovalsPage_queue$key } from "../../__generated__/ApprovalsPage_queue.graphql";
import type { ApprovalsPageRefetchQuery } from "../../__generated__/ApprovalsPageRefetchQuery.graphql";
import { useOnEvents } from "../../ui/useLiveEvents";
import { ApprovalRow } from "./ApprovalRow";

export function ApprovalsPage() {
  const data = useLazyLoadQuery<ApprovalsPageQuery>(
    graphql`
      query ApprovalsPageQuery {
        ...ApprovalsPage_queue
      }
    `,
    {},
    { fetchPolicy: "store-and-network" }, // what is cached shows at once; live events count from the fresh read
  );
  return (
    <>
      <h1>Approvals</h1>
      <Queue query={data} />
    </>
  );
}

// Queue lists the transactions waiting for approval, newest first, re-read
// whenever one is requested, decided or expires.
function Queue({ query }: { query: ApprovalsPage_queue$key }) {
  const { data, loadNext, hasNext, isLoadingNext, refetch } = usePaginationFragment<ApprovalsPageRefetchQuery, ApprovalsPage_queue$key>(
    graphql`
      fragment ApprovalsPage_queue on Query
      @refetchable(queryName: "ApprovalsPageRefetchQuery")
      @argumentDefinitions(first: { type: "Int", defaultValue: 50 }, after: { type: "String" }) {
        pending: transactions(status: pending_approval, first: $first, after: $after) @connection(key: "ApprovalsPage_pending") {
          totalCount
          edges {
            node {
              id
              status
              ...ApprovalRow_transaction
            }
          }
        }
      }
    `,
    query,
  );
  useOnEvents(["transaction.approval_requested", "transaction.completed", "transaction.declined", "transaction.expired"], () =>
    startTransition(() => void refetch({}, { fetchPolicy: "network-only" })),
  );
  const rows = data.pending.edges.filter((e) => e.node.status === "pending_approval");
  return (
    <>
      <p className="summary" role="status">
        {data.pending.totalCount} waiting for approval.
      </p>
      <div className="scroll">
        <table>
          <caption className="sr-only">Transactions waiting for approval</caption>
          <thead>
            <tr>
              <th scope="col">Transaction</th>
              <th scope="col">From</th>
              <th scope="col">To</th>
              <th scope="col">Action</th>
              <th scope="col" className="num">Amount</th>
              <th scope="col">Requested</th>
              <th scope="col">Expires in</th>
              <th scope="col">Decision</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((e) => (
              <ApprovalRow key={e.node.id} transaction={e.node} />
            ))}
            {rows.length === 0 && (
              <tr>
                <td colSpan={8}>Nothing waits for approval.</td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
      {hasNext && (
        <button type="button" onClick={() => loadNext(50)} disabled={isLoadingNext}>
          {isLoadingNext ? "Loading…" : "Load more"}
        </button>
      )}
    </>
  );
}
