import { useState, useTransition } from "react";
import { graphql, useRefetchableFragment } from "react-relay/hooks";
import type { AuditChain_agent$key } from "../../__generated__/AuditChain_agent.graphql";
import type { AuditChainRefetchQuery } from "../../__generated__/AuditChainRefetchQuery.graphql";
import { when } from "../../ui/format";

const size = 25;

// AuditChain pages through the agent's chain by sequence (the API pages it by
// `after`, not as a connection), re-reading through `node`.
export function AuditChain({ agent }: { agent: AuditChain_agent$key }) {
  const [a, refetch] = useRefetchableFragment<AuditChainRefetchQuery, AuditChain_agent$key>(
    graphql`
      fragment AuditChain_agent on Agent
      @refetchable(queryName: "AuditChainRefetchQuery")
      @argumentDefinitions(after: { type: "Int" }, limit: { type: "Int", defaultValue: 25 }) {
        auditChain(after: $after, limit: $limit) {
          sequence
          action
          timestamp
          actor
          details
          hash
        }
      }
    `,
    agent,
  );
  const [starts, setStarts] = useState<(number | null)[]>([null]);
  const [pending, startTransition] = useTransition();
  const go = (after: number | null, next: (number | null)[]) =>
    startTransition(() => {
      setStarts(next);
      refetch({ after, limit: size }, { fetchPolicy: "network-only" });
    });
  const entries = a.auditChain;
  const lastSeq = entries.length ? entries[entries.length - 1]!.sequence : null;
  return (
    <section className="panel" aria-labelledby="audit">
      <h2 id="audit">Audit chain</h2>
      <div className="scroll">
        <table data-testid="audit-chain">
          <caption className="sr-only">Audit chain entries in chain order</caption>
          <thead>
            <tr>
              <th scope="col" className="num">#</th>
              <th scope="col">Action</th>
              <th scope="col">When</th>
              <th scope="col">Actor</th>
              <th scope="col">Details</th>
              <th scope="col">Hash</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((e) => (
              <tr key={e.sequence}>
                <th scope="row" className="num">
                  {e.sequence}
                </th>
                <td>{e.action}</td>
                <td>{when(e.timestamp)}</td>
                <td>
                  <code>{e.actor}</code>
                </td>
                <td>
                  <code>{e.details == null ? "" : JSON.stringify(e.details).slice(0, 300)}</code>
                </td>
                <td>
                  <code title={e.hash}>{e.hash.slice(0, 12)}…</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <nav className="pager" aria-label="Audit chain pages">
        <button type="button" disabled={pending || starts.length <= 1} onClick={() => go(starts[starts.length - 2] ?? null, starts.slice(0, -1))}>
          Earlier entries
        </button>
        <button type="button" disabled={pending || entries.length < size || lastSeq == null} onClick={() => go(lastSeq, [...starts, lastSeq])}>
          Later entries
        </button>
      </nav>
    </section>
  );
}
