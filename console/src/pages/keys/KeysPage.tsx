import { startTransition, useId, useState, type FormEvent } from "react";
import { graphql, useLazyLoadQuery } from "react-relay/hooks";
import type { KeysPageQuery } from "../../__generated__/KeysPageQuery.graphql";
import type { KeysPageCreateMutation, ApiKeyRole } from "../../__generated__/KeysPageCreateMutation.graphql";
import { useCaps } from "../../caps";
import { ErrorBox } from "../../ui/ErrorBox";
import { useCommit } from "../../ui/mutation";
import { KeyRow } from "./KeyRow";

export function KeysPage() {
  const caps = useCaps();
  const [fetchKey, setFetchKey] = useState(0);
  const data = useLazyLoadQuery<KeysPageQuery>(
    graphql`
      query KeysPageQuery {
        apiKeys {
          id
          ...KeyRow_key
        }
      }
    `,
    {},
    { fetchKey, fetchPolicy: fetchKey ? "network-only" : "store-or-network" },
  );
  if (!caps.admin) return <p>Only admin keys manage keys.</p>;
  return (
    <>
      <h1>Keys</h1>
      <CreateKey onCreated={() => startTransition(() => setFetchKey((n) => n + 1))} />
      <div className="scroll">
        <table>
          <caption>API keys of this organization</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Id</th>
              <th scope="col">Role</th>
              <th scope="col">Agents</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col">State</th>
            </tr>
          </thead>
          <tbody>
            {data.apiKeys.map((k) => (
              <KeyRow key={k.id} apiKey={k} />
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

// CreateKey creates a key and shows its secret once.
function CreateKey({ onCreated }: { onCreated: () => void }) {
  const id = useId();
  const [name, setName] = useState("");
  const [role, setRole] = useState<ApiKeyRole>("readonly");
  const [agents, setAgents] = useState("");
  const [error, setError] = useState<unknown>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const [create, pending] = useCommit<KeysPageCreateMutation>(graphql`
    mutation KeysPageCreateMutation($input: CreateApiKeyInput!) {
      createApiKey(input: $input) {
        key {
          id
          ...KeyRow_key
        }
        secret
      }
    }
  `);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    try {
      const agentIds = agents.split(/[\s,]+/).filter(Boolean);
      const r = await create({ input: { name, role, agentIds: role === "agent" ? agentIds : null } });
      setSecret(r.createApiKey.secret);
      setName("");
      setAgents("");
      onCreated();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <section className="panel" aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`}>Create a key</h2>
      <form onSubmit={submit} className="grid-form">
        <p>
          <label htmlFor={`${id}-n`}>Name</label>
          <input id={`${id}-n`} value={name} required onChange={(e) => setName(e.target.value)} />
        </p>
        <p>
          <label htmlFor={`${id}-r`}>Role</label>
          <select id={`${id}-r`} value={role} onChange={(e) => setRole(e.target.value as ApiKeyRole)}>
            <option value="readonly">readonly</option>
            <option value="agent">agent</option>
            <option value="admin">admin</option>
          </select>
        </p>
        {role === "agent" && (
          <p>
            <label htmlFor={`${id}-a`}>Agent ids (comma-separated)</label>
            <input id={`${id}-a`} value={agents} required onChange={(e) => setAgents(e.target.value)} />
          </p>
        )}
        <p>
          <button type="submit" className="primary" disabled={pending}>
            Create key
          </button>
        </p>
      </form>
      {error != null && <ErrorBox error={error} />}
      {secret && (
        <div className="secret" role="status">
          <p>
            The new key's secret, shown once: <code data-testid="key-secret">{secret}</code>
          </p>
          <button type="button" onClick={() => setSecret(null)}>
            I have copied it
          </button>
        </div>
      )}
    </section>
  );
}
