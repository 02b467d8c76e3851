import { useEffect, useRef } from "react";
import uPlot from "uplot";

type Props = {
  label: string;
  data: uPlot.AlignedData;
  series: uPlot.Series[];
  height?: number;
  yRange?: [number, number];
};

// Chart draws a uPlot chart sized to its container; `label` describes it for
// screen readers (each chart also has a table of its figures beside it).
export function Chart({ label, data, series, height = 220, yRange }: Props) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const width = () => Math.max(280, el.clientWidth);
    const plot = new uPlot(
      {
        width: width(),
        height,
        series: [{}, ...series],
        scales: { x: { time: true }, ...(yRange ? { y: { range: yRange } } : {}) },
        axes: [{ stroke: "#333" }, { stroke: "#333" }],
        legend: { show: true },
        cursor: { drag: { x: false, y: false } },
      },
      data,
      el,
    );
    const ro = new ResizeObserver(() => plot.setSize({ width: width(), height }));
    ro.observe(el);
    return () => {
      ro.disconnect();
      plot.destroy();
    };
  }, [data, series, height, yRange]);
  return <div className="chart" ref={box} role="img" aria-label={label} />;
}
