import { graphql, useFragment, useLazyLoadQuery } from "react-relay/hooks";
import type { OverviewPageQuery } from "../../__generated__/OverviewPageQuery.graphql";
import type { OverviewPage_counts$key } from "../../__generated__/OverviewPage_counts.graphql";
import type { OverviewPage_attention$key } from "../../__generated__/OverviewPage_attention.graphql";
import { useRefreshOn } from "../../ui/useLiveEvents";

const query = graphql`
  query OverviewPageQuery {
    overview {
      ...OverviewPage_counts
      ...OverviewPage_attention
    }
  }
`;

// OverviewPage shows the organization's counts, re-read whenever a live
// event arrives.
export function OverviewPage() {
  // What is cached shows at once; live events count from the fresh read.
  const data = useLazyLoadQuery<OverviewPageQuery>(query, {}, { fetchPolicy: "store-and-network" });
  useRefreshOn<OverviewPageQuery>([], query, {});
  return (
    <>
      <h1>Overview</h1>
      <Attention overview={data.overview} />
      <Counts overview={data.overview} />
    </>
  );
}

function Attention({ overview }: { overview: OverviewPage_attention$key }) {
  const o = useFragment(
    graphql`
      fragment OverviewPage_attention on Overview {
        pendingApprovals
        openDisputes
        webhooksFailing
        webhooksDisabled
      }
    `,
    overview,
  );
  const tiles: [string, number, string | null][] = [
    ["Pending approvals", o.pendingApprovals, "#/approvals"],
    ["Open disputes", o.openDisputes, null],
    ["Webhooks failing", o.webhooksFailing, "#/webhooks"],
    ["Webhooks disabled", o.webhooksDisabled, "#/webhooks"],
  ];
  return (
    <section aria-labelledby="attention">
      <h2 id="attention">Needs attention</h2>
      <ul className="tiles">
        {tiles.map(([label, n, link]) => (
          <li key={label} className={n > 0 ? "tile warn" : "tile"} data-testid={label}>
            <span className="n">{n}</span> {link ? <a href={link}>{label}</a> : label}
          </li>
        ))}
      </ul>
    </section>
  );
}

function Counts({ overview }: { overview: OverviewPage_counts$key }) {
  const o = useFragment(
    graphql`
      fragment OverviewPage_counts on Overview {
        agentsByStatus {
          key
          count
        }
        agentsByAssessment {
          key
          count
        }
        transactionsLast24h {
          key
          count
        }
      }
    `,
    overview,
  );
  const groups: [string, readonly { key: string; count: number }[]][] = [
    ["Agents by status", o.agentsByStatus],
    ["Agents by assessment", o.agentsByAssessment],
    ["Transactions in the last 24 hours", o.transactionsLast24h],
  ];
  return (
    <div className="cols">
      {groups.map(([title, rows]) => (
        <table key={title} className="counts">
          <caption>{title}</caption>
          <thead>
            <tr>
              <th scope="col">Key</th>
              <th scope="col" className="num">Count</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.key}>
                <th scope="row">{r.key}</th>
                <td className="num">{r.count}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ))}
    </div>
  );
}
