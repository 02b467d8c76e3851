import { useEffect, useState } from "react";

// useNow is the current time, updated every second while mounted.
export function useNow(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = window.setInterval(() => setNow(Date.now()), 1000);
    return () => window.clearInterval(t);
  }, []);
  return now;
}

export function countdown(until: string | null | undefined, now: number): string {
  if (!until) return "—";
  let s = Math.round((Date.parse(until) - now) / 1000);
  if (s <= 0) return "expired";
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  return h > 0 ? `${h}h ${m}m` : m > 0 ? `${m}m ${s}s` : `${s}s`;
}
