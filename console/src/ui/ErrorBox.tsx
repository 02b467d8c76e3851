import { asApiError } from "../relay/errors";

// ErrorBox shows an API error as the API gave it: code, message, and the
// field errors or policy reason that came with it.
export function ErrorBox({ error, title }: { error: unknown; title?: string }) {
  const e = asApiError(error);
  return (
    <div className="error" role="alert">
      {title && <strong>{title}: </strong>}
      {e.errors.map((g, i) => (
        <p key={i}>
          <code className="code">{g.extensions?.code ?? e.code}</code> {g.message}
          {g.extensions?.reasonCode && (
            <>
              {" "}
              (<code>{g.extensions.reasonCode}</code>
              {g.extensions.reason && g.extensions.reason !== g.message ? `: ${g.extensions.reason}` : ""})
            </>
          )}
        </p>
      ))}
      {e.fieldErrors.length > 0 && (
        <ul>
          {e.fieldErrors.map((f) => (
            <li key={f.field}>
              <code>{f.field}</code>: {f.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
