import { startTransition, useId, useState } from "react";
import { graphql, useLazyLoadQuery, usePaginationFragment } from "react-relay/hooks";
import type { AgentsPageQuery } from "../../__generated__/AgentsPageQuery.graphql";
import type { AgentsPage_list$key } from "../../__generated__/AgentsPage_list.graphql";
import type { AgentsPageRefetchQuery } from "../../__generated__/AgentsPageRefetchQuery.graphql";
import type { AgentStatus } from "../../__generated__/AgentsPageQuery.graphql";
import { useOnEvents } from "../../ui/useLiveEvents";
import { ErrorBox } from "../../ui/ErrorBox";
import { AgentRow } from "./AgentRow";
import { useCaps } from "../../caps";

export const PAGE = 50;
const assessments = ["Verified", "Moderate", "High Risk"] as const;

export function AgentsPage() {
  const [status, setStatus] = useState<AgentStatus | null>(null);
  const data = useLazyLoadQuery<AgentsPageQuery>(
    graphql`
      query AgentsPageQuery($status: AgentStatus) {
        ...AgentsPage_list @arguments(status: $status)
      }
    `,
    { status },
    { fetchPolicy: "store-and-network" }, // what is cached shows at once; live events count from the fresh read
  );
  return (
    <>
      <h1>Agents</h1>
      <AgentList query={data} status={status} setStatus={setStatus} />
    </>
  );
}

// AgentList pages through the organization's agents with Relay's connection
// (forwards from the API; backwards over the pages already read), filters by
// status in the API, and by assessment and name among the agents read so far.
function AgentList({ query, status, setStatus }: { query: AgentsPage_list$key; status: AgentStatus | null; setStatus: (s: AgentStatus | null) => void }) {
  const { data, loadNext, hasNext, isLoadingNext, refetch } = usePaginationFragment<AgentsPageRefetchQuery, AgentsPage_list$key>(
    graphql`
      fragment AgentsPage_list on Query
      @refetchable(queryName: "AgentsPageRefetchQuery")
      @argumentDefinitions(status: { type: "AgentStatus" }, first: { type: "Int", defaultValue: 50 }, after: { type: "String" }) {
        agents(status: $status, first: $first, after: $after) @connection(key: "AgentsPage_agents", filters: ["status"]) {
          totalCount
          edges {
            node {
              id
              name
              trust {
                assessment
              }
              ...AgentRow_agent
            }
          }
        }
      }
    `,
    query,
  );
  const [assessment, setAssessment] = useState("");
  const [search, setSearch] = useState("");
  const [page, setPage] = useState(0);
  const [error, setError] = useState<unknown>(null);
  const id = useId();
  const { admin } = useCaps();

  // A registered, suspended or reinstated agent shows at once: re-read the first page.
  useOnEvents(["agent.registered", "agent.suspended", "agent.reinstated", "agent.updated", "trust.score_changed"], () => {
    startTransition(() => void refetch({ status }, { fetchPolicy: "network-only" }));
  });

  const edges = data.agents.edges;
  const needle = search.trim().toLowerCase();
  const filtered = edges.filter(
    (e) => (!assessment || e.node.trust.assessment === assessment) && (!needle || e.node.name.toLowerCase().includes(needle) || e.node.id === needle),
  );
  const pages = Math.max(1, Math.ceil(filtered.length / PAGE));
  const current = Math.min(page, pages - 1);
  const shown = filtered.slice(current * PAGE, (current + 1) * PAGE);
  const clientFiltered = assessment !== "" || needle !== "";

  const next = () => {
    if (current + 1 < pages) {
      setPage(current + 1);
      return;
    }
    loadNext(PAGE, {
      onComplete: (err) => {
        if (err) setError(err);
        else setPage(current + 1);
      },
    });
  };

  return (
    <>
      <form className="filters" role="search" onSubmit={(e) => e.preventDefault()}>
        <p>
          <label htmlFor={`${id}-s`}>Status</label>
          <select
            id={`${id}-s`}
            value={status ?? ""}
            onChange={(e) => {
              setPage(0);
              const next = (e.target.value || null) as AgentStatus | null;
              startTransition(() => setStatus(next));
            }}
          >
            <option value="">All</option>
            <option value="active">active</option>
            <option value="suspended">suspended</option>
          </select>
        </p>
        <p>
          <label htmlFor={`${id}-a`}>Assessment</label>
          <select id={`${id}-a`} value={assessment} onChange={(e) => { setPage(0); setAssessment(e.target.value); }}>
            <option value="">All</option>
            {assessments.map((a) => (
              <option key={a}>{a}</option>
            ))}
          </select>
        </p>
        <p>
          <label htmlFor={`${id}-q`}>Search by name</label>
          <input id={`${id}-q`} type="search" value={search} onChange={(e) => { setPage(0); setSearch(e.target.value); }} />
        </p>
      </form>
      <p className="summary" role="status">
        {data.agents.totalCount} agents{status ? ` ${status}` : ""}; {edges.length} read.
        {clientFiltered && ` ${filtered.length} of them match (assessment and name filter the agents read so far: read more pages to search further).`}
      </p>
      {error != null && <ErrorBox error={error} />}
      <div className="scroll">
        <table className="agents">
          <caption className="sr-only">Agents, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Status</th>
              <th scope="col" className="num">Per transaction</th>
              <th scope="col" className="num">Daily limit</th>
              <th scope="col" className="num">Score</th>
              <th scope="col">Assessment</th>
              <th scope="col" className="num">Confidence</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((e) => (
              <AgentRow key={e.node.id} agent={e.node} admin={admin} />
            ))}
            {shown.length === 0 && (
              <tr>
                <td colSpan={8}>No agents{clientFiltered ? " match among those read" : ""}.</td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
      <nav className="pager" aria-label="Agent pages">
        <button type="button" onClick={() => setPage(current - 1)} disabled={current === 0}>
          Previous page
        </button>
        <span>
          Page {current + 1}
          {hasNext ? "" : ` of ${pages}`}
        </span>
        <button type="button" onClick={next} disabled={isLoadingNext || (current + 1 >= pages && !hasNext)}>
          {isLoadingNext ? "Loading…" : "Next page"}
        </button>
      </nav>
    </>
  );
}
