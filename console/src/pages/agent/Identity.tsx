import { useState } from "react";
import { graphql, useFragment, useRelayEnvironment } from "react-relay/hooks";
import { fetchQuery } from "relay-runtime";
import type { Identity_agent$key } from "../../__generated__/Identity_agent.graphql";
import type { IdentityVerifyQuery, IdentityVerifyQuery$data } from "../../__generated__/IdentityVerifyQuery.graphql";
import { useCaps } from "../../caps";
import { ErrorBox } from "../../ui/ErrorBox";
import { money, when } from "../../ui/format";
import { SuspendButton } from "../agents/SuspendButton";

const verifyQuery = graphql`
  query IdentityVerifyQuery($id: ID!) {
    verifyAgent(id: $id) {
      verified
      fingerprint
      auditChainValid
    }
  }
`;

export function Identity({ agent }: { agent: Identity_agent$key }) {
  const a = useFragment(
    graphql`
      fragment Identity_agent on Agent {
        id
        name
        status
        environment
        currency
        authorizedActions
        spendingLimit
        dailyLimit
        fingerprint
        createdAt
        updatedAt
        ...SuspendButton_agent
      }
    `,
    agent,
  );
  const caps = useCaps();
  const env = useRelayEnvironment();
  const [result, setResult] = useState<IdentityVerifyQuery$data["verifyAgent"] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const verify = () => {
    setBusy(true);
    setError(null);
    setResult(null);
    fetchQuery<IdentityVerifyQuery>(env, verifyQuery, { id: a.id }, { fetchPolicy: "network-only" }).subscribe({
      next: (d) => setResult(d.verifyAgent),
      error: (e: unknown) => {
        setError(e);
        setBusy(false);
      },
      complete: () => setBusy(false),
    });
  };
  return (
    <section className="panel" aria-labelledby="identity">
      <h2 id="identity">Identity</h2>
      <dl className="facts">
        <dt>Id</dt>
        <dd>
          <code>{a.id}</code>
        </dd>
        <dt>Status</dt>
        <dd>
          <span className={`badge ${a.status}`}>{a.status}</span> {caps.admin && <SuspendButton agent={a} />}
        </dd>
        <dt>Environment</dt>
        <dd>{a.environment}</dd>
        <dt>Actions</dt>
        <dd>{a.authorizedActions.join(", ")}</dd>
        <dt>Per transaction</dt>
        <dd>{money(a.spendingLimit, a.currency)}</dd>
        <dt>Daily limit</dt>
        <dd>{money(a.dailyLimit, a.currency)}</dd>
        <dt>Fingerprint</dt>
        <dd>
          <code data-testid="fingerprint">{a.fingerprint}</code>
        </dd>
        <dt>Registered</dt>
        <dd>{when(a.createdAt)}</dd>
        <dt>Changed</dt>
        <dd>{when(a.updatedAt)}</dd>
      </dl>
      <div className="actions">
        <button type="button" onClick={verify} disabled={busy}>
          Verify fingerprint and audit chain
        </button>
      </div>
      <div role="status" aria-live="polite">
        {result && (
          <p className={result.verified && result.auditChainValid ? "help" : "notice"} data-testid="verify-result">
            {result.verified ? "Fingerprint verified" : "Fingerprint does NOT match"}; audit chain {result.auditChainValid ? "valid" : "INVALID"}.
            {result.fingerprint !== a.fingerprint && <> Recomputed: <code>{result.fingerprint}</code></>}
          </p>
        )}
      </div>
      {error != null && <ErrorBox error={error} />}
    </section>
  );
}
