import { graphql, useFragment } from "react-relay/hooks";
import type { ApprovalRow_transaction$key } from "../../__generated__/ApprovalRow_transaction.graphql";
import type { ApprovalRowApproveMutation } from "../../__generated__/ApprovalRowApproveMutation.graphql";
import type { ApprovalRowDeclineMutation } from "../../__generated__/ApprovalRowDeclineMutation.graphql";
import { useCaps } from "../../caps";
import { ConfirmButton } from "../../ui/Confirm";
import { money, when } from "../../ui/format";
import { useCommit } from "../../ui/mutation";
import { countdown, useNow } from "../../ui/useNow";

export function ApprovalRow({ transaction }: { transaction: ApprovalRow_transaction$key }) {
  const t = useFragment(
    graphql`
      fragment ApprovalRow_transaction on Transaction {
        id
        fromAgent
        toAgent
        action
        amount
        currency
        memo
        createdAt
        expiresAt
      }
    `,
    transaction,
  );
  const caps = useCaps();
  const now = useNow();
  const [approve] = useCommit<ApprovalRowApproveMutation>(graphql`
    mutation ApprovalRowApproveMutation($id: ID!) {
      approveTransaction(id: $id) {
        id
        status
        createdAt
        decidedAt
        decidedBy
        expiresAt
      }
    }
  `);
  const [decline] = useCommit<ApprovalRowDeclineMutation>(graphql`
    mutation ApprovalRowDeclineMutation($id: ID!, $reason: String!) {
      declineTransaction(id: $id, reason: $reason) {
        id
        status
        reason
        decidedAt
        decidedBy
      }
    }
  `);
  const amount = money(t.amount, t.currency);
  return (
    <tr>
      <th scope="row">
        <code>{t.id}</code>
        {t.memo && <div className="muted">{t.memo}</div>}
      </th>
      <td>
        <a href={`#/agents/${encodeURIComponent(t.fromAgent)}`}>{t.fromAgent}</a>
      </td>
      <td>
        <code>{t.toAgent}</code>
      </td>
      <td>{t.action}</td>
      <td className="num">{amount}</td>
      <td>{when(t.createdAt)}</td>
      <td>
        <time dateTime={t.expiresAt ?? undefined}>{countdown(t.expiresAt, now)}</time>
      </td>
      <td className="actions">
        {caps.admin ? (
          <>
            <ConfirmButton label="Approve" buttonLabel={`Approve ${t.id}`} title={`Approve ${amount} from ${t.fromAgent}?`} onConfirm={() => approve({ id: t.id })}>
              <p>Every check of the policy but the threshold runs again now; passing, the money moves.</p>
            </ConfirmButton>
            <ConfirmButton
              label="Decline"
              buttonLabel={`Decline ${t.id}`}
              title={`Decline ${amount} from ${t.fromAgent}?`}
              danger
              reason="required"
              onConfirm={(reason) => decline({ id: t.id, reason })}
            />
          </>
        ) : (
          <span className="muted">admin keys decide</span>
        )}
      </td>
    </tr>
  );
}
