import { Suspense } from "react";
import { graphql, useLazyLoadQuery } from "react-relay/hooks";
import type { AgentPageQuery } from "../../__generated__/AgentPageQuery.graphql";
import { ErrorBoundary } from "../../ui/ErrorBoundary";
import { Identity } from "./Identity";
import { TrustPanel } from "./TrustPanel";
import { AuditChain } from "./AuditChain";
import { Transactions } from "./Transactions";
import { Mandates } from "./Mandates";
import { PolicyPanel } from "./PolicyPanel";
import { UsageBars } from "./UsageBars";
import { SpendChart } from "./SpendChart";

// AgentPage is one query for the agent and its lists; the usage bars and the
// spend chart read their own queries (each has its own refresh and range)
// and fail on their own, showing the API's error where they would be.
export function AgentPage({ id }: { id: string }) {
  const data = useLazyLoadQuery<AgentPageQuery>(
    graphql`
      query AgentPageQuery($id: ID!) {
        agent(id: $id) {
          id
          name
          currency
          ...Identity_agent
          ...TrustPanel_agent
          ...AuditChain_agent
          ...PolicyPanel_agent
        }
        ...TrustPanel_history @arguments(agentId: $id)
        ...Mandates_query @arguments(agentId: $id)
        ...Transactions_query @arguments(agentId: $id)
      }
    `,
    { id },
    { fetchPolicy: "store-and-network" },
  );
  const a = data.agent;
  const section = (title: string, node: React.ReactNode) => (
    <ErrorBoundary title={title}>
      <Suspense fallback={<p className="loading" role="status">Loading {title.toLowerCase()}…</p>}>{node}</Suspense>
    </ErrorBoundary>
  );
  return (
    <>
      <p>
        <a href="#/agents">← Agents</a>
      </p>
      <h1>{a.name}</h1>
      <Identity agent={a} />
      <TrustPanel agent={a} history={data} />
      <PolicyPanel agent={a}>{section("Usage", <UsageBars agentId={a.id} />)}</PolicyPanel>
      {section("Spend", <SpendChart agentId={a.id} currency={a.currency} />)}
      <Mandates query={data} agentId={a.id} />
      <Transactions query={data} />
      <AuditChain agent={a} />
    </>
  );
}
