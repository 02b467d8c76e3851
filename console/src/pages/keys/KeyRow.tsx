import { graphql, useFragment } from "react-relay/hooks";
import type { KeyRow_key$key } from "../../__generated__/KeyRow_key.graphql";
import type { KeyRowRevokeMutation } from "../../__generated__/KeyRowRevokeMutation.graphql";
import { useCaps } from "../../caps";
import { ConfirmButton } from "../../ui/Confirm";
import { when } from "../../ui/format";
import { useCommit } from "../../ui/mutation";

export function KeyRow({ apiKey }: { apiKey: KeyRow_key$key }) {
  const k = useFragment(
    graphql`
      fragment KeyRow_key on ApiKey {
        id
        name
        role
        agentIds
        createdAt
        lastUsedAt
        revokedAt
      }
    `,
    apiKey,
  );
  const caps = useCaps();
  const [revoke] = useCommit<KeyRowRevokeMutation>(graphql`
    mutation KeyRowRevokeMutation($id: ID!) {
      revokeApiKey(id: $id) {
        id
        revokedAt
      }
    }
  `);
  return (
    <tr>
      <th scope="row">{k.name || "—"}</th>
      <td>
        <code>{k.id}</code>
        {k.id === caps.keyId && <span className="muted"> (this key)</span>}
      </td>
      <td>{k.role}</td>
      <td>{k.agentIds.length ? k.agentIds.map((a) => <code key={a}>{a} </code>) : "—"}</td>
      <td>{when(k.createdAt)}</td>
      <td>{when(k.lastUsedAt)}</td>
      <td>
        {k.revokedAt ? (
          <span className="badge fail">revoked {when(k.revokedAt)}</span>
        ) : (
          <ConfirmButton label="Revoke" buttonLabel={`Revoke ${k.name || k.id}`} title={`Revoke ${k.name || k.id}?`} danger onConfirm={() => revoke({ id: k.id })}>
            <p>It is refused from the next request on, and its live streams end.</p>
          </ConfirmButton>
        )}
      </td>
    </tr>
  );
}
