// Display helpers; amounts stay exact as the API sent them.
export function money(amount: number | string | null | undefined, currency: string): string {
  return amount == null ? "—" : `${amount} ${currency}`;
}

export function when(t: string | null | undefined): string {
  return t ? t.replace("T", " ").replace(/\.\d+Z$/, "Z") : "—";
}

export function percent(x: number): string {
  return `${Math.round(x * 100)}%`;
}

export function windowLabel(w: { window: string; mode: string; actions?: readonly string[] | null }): string {
  const mode = w.window === "total" ? "" : ` (${w.mode})`;
  return `${w.window}${mode}${w.actions?.length ? ` · ${w.actions.join(", ")}` : ""}`;
}
