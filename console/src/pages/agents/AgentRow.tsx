import { graphql, useFragment } from "react-relay/hooks";
import type { AgentRow_agent$key } from "../../__generated__/AgentRow_agent.graphql";
import { money, percent } from "../../ui/format";
import { SuspendButton } from "./SuspendButton";

export function AgentRow({ agent, admin }: { agent: AgentRow_agent$key; admin: boolean }) {
  const a = useFragment(
    graphql`
      fragment AgentRow_agent on Agent {
        id
        name
        status
        spendingLimit
        dailyLimit
        currency
        trust {
          score
          assessment
          factors {
            confidence
          }
        }
        ...SuspendButton_agent
      }
    `,
    agent,
  );
  return (
    <tr>
      <th scope="row">
        <a href={`#/agents/${encodeURIComponent(a.id)}`}>{a.name}</a>
      </th>
      <td>
        <span className={`badge ${a.status}`}>{a.status}</span>
      </td>
      <td className="num">{money(a.spendingLimit, a.currency)}</td>
      <td className="num">{money(a.dailyLimit, a.currency)}</td>
      <td className="num">{a.trust.score}</td>
      <td>{a.trust.assessment}</td>
      <td className="num">{percent(a.trust.factors.confidence)}</td>
      <td>{admin ? <SuspendButton agent={a} /> : <span className="muted">—</span>}</td>
    </tr>
  );
}
