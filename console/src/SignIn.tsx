import { useState, type FormEvent } from "react";
import type { ApiError } from "./relay/errors";
import { ErrorBox } from "./ui/ErrorBox";

// SignIn asks for an API key; the key goes to sessionStorage, never a URL.
export function SignIn({ onSignIn, refusal }: { onSignIn: (key: string) => void; refusal: ApiError | null }) {
  const [key, setKey] = useState("");
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const k = key.trim();
    if (k) onSignIn(k);
  };
  return (
    <main className="signin">
      <h1>Agent Trust console</h1>
      <form onSubmit={submit} method="post" action="#">
        <label htmlFor="api-key">API key</label>
        <input
          id="api-key"
          name="api-key"
          type="password"
          autoComplete="off"
          spellCheck={false}
          required
          value={key}
          onChange={(e) => setKey(e.target.value)}
          aria-describedby="api-key-help"
        />
        <p id="api-key-help" className="help">
          Kept in this tab only (session storage). No key yet? <code>go run . org create --name NAME</code> prints one.
        </p>
        <button type="submit">Sign in</button>
      </form>
      {refusal && <ErrorBox error={refusal} />}
    </main>
  );
}
