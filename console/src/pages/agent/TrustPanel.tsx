import { useMemo } from "react";
import { graphql, useFragment } from "react-relay/hooks";
import type uPlot from "uplot";
import type { TrustPanel_agent$key } from "../../__generated__/TrustPanel_agent.graphql";
import type { TrustPanel_history$key } from "../../__generated__/TrustPanel_history.graphql";
import { Chart } from "../../ui/Chart";
import { percent, when } from "../../ui/format";

// The kinds of cause a score change names, each drawn as its own markers.
const causes: [string, string][] = [
  ["registration", "#0b57d0"],
  ["transaction", "#146c2e"],
  ["refusal", "#8a5300"],
  ["dispute", "#b3261e"],
  ["withdrawal", "#6a1b9a"],
  ["suspension", "#000000"],
  ["reinstatement", "#00695c"],
  ["rebuild", "#555555"],
];

export function TrustPanel({ agent, history }: { agent: TrustPanel_agent$key; history: TrustPanel_history$key }) {
  const a = useFragment(
    graphql`
      fragment TrustPanel_agent on Agent {
        trust {
          score
          assessment
          updatedAt
          factors {
            confidence
            volume
            completionRate
          }
          contributions {
            factor
            points
            description
          }
        }
      }
    `,
    agent,
  );
  const h = useFragment(
    graphql`
      fragment TrustPanel_history on Query @argumentDefinitions(agentId: { type: "ID!" }) {
        trustHistory(agentId: $agentId) {
          timestamp
          score
          assessment
          cause
        }
      }
    `,
    history,
  );
  const points = h.trustHistory;
  const [data, series] = useMemo(() => {
    const xs = points.map((p) => Date.parse(p.timestamp) / 1000);
    const ys = points.map((p) => p.score);
    const present = causes.filter(([kind]) => points.some((p) => p.cause?.startsWith(kind + ":")));
    const marks = present.map(([kind]) => points.map((p) => (p.cause?.startsWith(kind + ":") ? p.score : null)));
    const s: uPlot.Series[] = [
      { label: "Score", stroke: "#1d2733", width: 2, points: { show: false } },
      ...present.map(([kind, color]) => ({ label: kind, stroke: color, width: 0, points: { show: true, size: 9, fill: color, stroke: color } })),
    ];
    return [[xs, ys, ...marks] as uPlot.AlignedData, s];
  }, [points]);

  return (
    <section className="panel" aria-labelledby="trust">
      <h2 id="trust">Trust</h2>
      <p>
        Score <strong data-testid="score">{a.trust.score}</strong>, {a.trust.assessment}; confidence {percent(a.trust.factors.confidence)} over{" "}
        {a.trust.factors.volume} completed transactions (evidence changed {when(a.trust.updatedAt)}).
      </p>
      <div className="cols">
        <div>
          <h3>History</h3>
          <Chart label={`Trust score over time: ${points.length} changes, now ${a.trust.score}`} data={data} series={series} yRange={[0, 1000]} />
          <details>
            <summary>Score changes ({points.length})</summary>
            <div className="scroll">
              <table data-testid="trust-history">
                <thead>
                  <tr>
                    <th scope="col">When</th>
                    <th scope="col" className="num">Score</th>
                    <th scope="col">Assessment</th>
                    <th scope="col">Cause</th>
                  </tr>
                </thead>
                <tbody>
                  {points.map((p, i) => (
                    <tr key={i}>
                      <th scope="row">{when(p.timestamp)}</th>
                      <td className="num">{p.score}</td>
                      <td>{p.assessment}</td>
                      <td>
                        <code>{p.cause ?? "—"}</code>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </details>
        </div>
        <div>
          <table>
            <caption>Why the score is {a.trust.score}</caption>
            <thead>
              <tr>
                <th scope="col">Factor</th>
                <th scope="col" className="num">Points</th>
                <th scope="col">Because</th>
              </tr>
            </thead>
            <tbody>
              {a.trust.contributions.map((c) => (
                <tr key={c.factor}>
                  <th scope="row">{c.factor}</th>
                  <td className="num">{c.points > 0 ? `+${c.points}` : c.points}</td>
                  <td>{c.description}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </div>
    </section>
  );
}
