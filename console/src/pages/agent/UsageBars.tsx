import { graphql, useLazyLoadQuery } from "react-relay/hooks";
import type { UsageBarsQuery } from "../../__generated__/UsageBarsQuery.graphql";
import { when, windowLabel } from "../../ui/format";

export const usageQuery = graphql`
  query UsageBarsQuery($id: ID!) {
    node(id: $id) {
      ... on Agent {
        currency
        policyUsage {
          spendLimits {
            window
            mode
            actions
            limit
            used
            remaining
            resetsAt
            freesUpAt
          }
          velocityLimits {
            windowSeconds
            actions
            maxCount
            count
          }
        }
      }
    }
  }
`;

// UsageBars draws each window of the policy against its limit, as the policy
// check would count it now (Agent.policyUsage, read through `node`).
export function UsageBars({ agentId }: { agentId: string }) {
  const data = useLazyLoadQuery<UsageBarsQuery>(usageQuery, { id: agentId }, { fetchPolicy: "store-and-network" });
  const usage = data.node?.policyUsage;
  if (!usage) return null;
  const currency = data.node?.currency ?? "";
  const rows = [
    ...usage.spendLimits.map((l) => ({
      label: windowLabel(l),
      used: Number(l.used),
      limit: Number(l.limit),
      text: `${l.used} of ${l.limit} ${currency}; ${l.remaining} left`,
      note: l.resetsAt ? `resets ${when(l.resetsAt)}` : l.freesUpAt ? `frees up from ${when(l.freesUpAt)}` : "",
    })),
    ...usage.velocityLimits.map((v) => ({
      label: `${v.windowSeconds} s velocity${v.actions?.length ? ` · ${v.actions.join(", ")}` : ""}`,
      used: v.count,
      limit: v.maxCount,
      text: `${v.count} of ${v.maxCount} transactions`,
      note: "",
    })),
  ];
  if (rows.length === 0) return <p>The policy sets no windows.</p>;
  return (
    <table data-testid="usage">
      <caption>Usage now</caption>
      <thead>
        <tr>
          <th scope="col">Limit</th>
          <th scope="col">Used</th>
          <th scope="col">Figures</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r, i) => {
          const pct = r.limit > 0 ? Math.min(100, (r.used / r.limit) * 100) : 0;
          return (
            <tr key={i}>
              <th scope="row">{r.label}</th>
              <td>
                <div className={pct >= 100 ? "bar over" : "bar"} role="meter" aria-valuemin={0} aria-valuemax={r.limit} aria-valuenow={r.used} aria-label={`${r.label} used`}>
                  <span style={{ width: `${pct}%` }} />
                </div>
              </td>
              <td>
                {r.text}
                {r.note && <div className="muted">{r.note}</div>}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
