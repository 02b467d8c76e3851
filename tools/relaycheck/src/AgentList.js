// The paginated fragment a Relay dashboard writes for usePaginationFragment:
// relay-compiler turns it into the artifacts relaycheck.js runs.
const { graphql } = require('relay-runtime');

graphql`
  fragment AgentList_query on Query
  @refetchable(queryName: "AgentListPaginationQuery")
  @argumentDefinitions(
    first: { type: "Int" }
    after: { type: "String" }
    last: { type: "Int" }
    before: { type: "String" }
  ) {
    agents(first: $first, after: $after, last: $last, before: $before)
      @connection(key: "AgentList_agents") {
      edges { node { id name } }
    }
  }
`;
