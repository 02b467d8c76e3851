import { startTransition, useId, useMemo, useState } from "react";
import { graphql, useLazyLoadQuery } from "react-relay/hooks";
import type uPlot from "uplot";
import type { SpendChartQuery, SpendBucket } from "../../__generated__/SpendChartQuery.graphql";
import { Chart } from "../../ui/Chart";

const ranges: { label: string; bucket: SpendBucket; ms: number }[] = [
  { label: "Last 24 hours, by hour", bucket: "HOUR", ms: 24 * 3600_000 },
  { label: "Last 7 days, by hour", bucket: "HOUR", ms: 7 * 24 * 3600_000 },
  { label: "Last 30 days, by day", bucket: "DAY", ms: 30 * 24 * 3600_000 },
];

// SpendChart draws the agent's completed outflow per bucket (spendSeries).
export function SpendChart({ agentId, currency }: { agentId: string; currency: string }) {
  const [range, setRange] = useState(0);
  const id = useId();
  // The window ends at the next whole hour, fixed for this choice of range.
  const vars = useMemo(() => {
    const hour = 3600_000;
    const until = Math.ceil(Date.now() / hour) * hour;
    const r = ranges[range]!;
    return { agentId, bucket: r.bucket, since: new Date(until - r.ms).toISOString(), until: new Date(until).toISOString() };
  }, [agentId, range]);
  const data = useLazyLoadQuery<SpendChartQuery>(
    graphql`
      query SpendChartQuery($agentId: ID!, $bucket: SpendBucket!, $since: Time!, $until: Time!) {
        spendSeries(agentId: $agentId, bucket: $bucket, since: $since, until: $until) {
          start
          amount
          count
        }
      }
    `,
    vars,
  );
  const points = data.spendSeries;
  const total = points.reduce((s, p) => s + Number(p.amount), 0);
  const count = points.reduce((s, p) => s + p.count, 0);
  const [chartData, series] = useMemo(
    () => [
      [points.map((p) => Date.parse(p.start) / 1000), points.map((p) => Number(p.amount))] as uPlot.AlignedData,
      [{ label: `Spent (${currency})`, stroke: "#0b57d0", fill: "rgba(11,87,208,0.15)", width: 2 }] as uPlot.Series[],
    ],
    [points, currency],
  );
  return (
    <section className="panel" aria-labelledby="spend">
      <h2 id="spend">Spend over time</h2>
      <p>
        <label htmlFor={`${id}-r`}>Range</label>
        <select id={`${id}-r`} value={range} onChange={(e) => {
          const next = Number(e.target.value);
          startTransition(() => setRange(next));
        }}>
          {ranges.map((r, i) => (
            <option key={r.label} value={i}>
              {r.label}
            </option>
          ))}
        </select>
      </p>
      <p data-testid="spend-total">
        {count} completed transactions, {Math.round(total * 100) / 100} {currency} in {points.length} buckets.
      </p>
      <Chart label={`Completed outflow per ${ranges[range]!.bucket === "HOUR" ? "hour" : "day"}: ${total} ${currency} in total`} data={chartData} series={series} />
    </section>
  );
}
