import { graphql, useLazyLoadQuery } from "react-relay/hooks";
import type { capsWhoamiQuery } from "./__generated__/capsWhoamiQuery.graphql";

export type Role = "admin" | "agent" | "readonly";

// Caps is what the signed-in key may do, from whoami: the console offers
// nothing the API would refuse the key.
export type Caps = {
  keyId: string;
  name: string;
  role: Role;
  agentIds: readonly string[];
  // Register, update, suspend, reinstate agents, set policies, approve,
  // decline, mandates, webhooks, keys: admin keys only.
  admin: boolean;
};

const whoami = graphql`
  query capsWhoamiQuery {
    whoami {
      id
      name
      role
      agentIds
    }
  }
`;

// useCaps reads whoami once per sign-in (then from Relay's store). A page
// asks for it while its own query is already on the way, so the two
// requests go out together rather than one after the other.
export function useCaps(): Caps {
  const k = useLazyLoadQuery<capsWhoamiQuery>(whoami, {}, { fetchPolicy: "store-or-network" }).whoami;
  return { keyId: k.id, name: k.name, role: k.role, agentIds: k.agentIds, admin: k.role === "admin" };
}
