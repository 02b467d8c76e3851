// The API key lives in this tab's sessionStorage only: never in a URL, a log
// or localStorage, and gone when the tab closes.
const slot = "agenttrust.console.apiKey";

export function storedKey(): string | null {
  return sessionStorage.getItem(slot);
}

export function storeKey(key: string): void {
  sessionStorage.setItem(slot, key);
}

export function forgetKey(): void {
  sessionStorage.removeItem(slot);
}
