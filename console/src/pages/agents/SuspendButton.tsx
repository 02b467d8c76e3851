import { graphql, useFragment } from "react-relay/hooks";
import type { SuspendButton_agent$key } from "../../__generated__/SuspendButton_agent.graphql";
import type { SuspendButtonSuspendMutation } from "../../__generated__/SuspendButtonSuspendMutation.graphql";
import type { SuspendButtonReinstateMutation } from "../../__generated__/SuspendButtonReinstateMutation.graphql";
import { ConfirmButton } from "../../ui/Confirm";
import { useCommit } from "../../ui/mutation";

// SuspendButton suspends an active agent or reinstates a suspended one, after
// a confirmation with an optional reason (recorded on the audit chain).
export function SuspendButton({ agent }: { agent: SuspendButton_agent$key }) {
  const a = useFragment(
    graphql`
      fragment SuspendButton_agent on Agent {
        id
        name
        status
      }
    `,
    agent,
  );
  const [suspend] = useCommit<SuspendButtonSuspendMutation>(graphql`
    mutation SuspendButtonSuspendMutation($id: ID!, $reason: String) {
      suspendAgent(id: $id, reason: $reason) {
        id
        status
        updatedAt
        trust {
          score
          assessment
          factors {
            confidence
          }
        }
      }
    }
  `);
  const [reinstate] = useCommit<SuspendButtonReinstateMutation>(graphql`
    mutation SuspendButtonReinstateMutation($id: ID!, $reason: String) {
      reinstateAgent(id: $id, reason: $reason) {
        id
        status
        updatedAt
        trust {
          score
          assessment
          factors {
            confidence
          }
        }
      }
    }
  `);
  if (a.status === "active") {
    return (
      <ConfirmButton
        label="Suspend"
        buttonLabel={`Suspend ${a.name}`}
        title={`Suspend ${a.name}?`}
        danger
        reason="optional"
        onConfirm={(reason) => suspend({ id: a.id, reason: reason || null })}
      >
        <p>Its evaluations and executes are refused until it is reinstated.</p>
      </ConfirmButton>
    );
  }
  return (
    <ConfirmButton
      label="Reinstate"
      buttonLabel={`Reinstate ${a.name}`}
      title={`Reinstate ${a.name}?`}
      reason="optional"
      onConfirm={(reason) => reinstate({ id: a.id, reason: reason || null })}
    >
      <p>It may act again; its score is recomputed.</p>
    </ConfirmButton>
  );
}
