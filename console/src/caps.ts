import { createContext, useContext } from "react";

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

export function capsOf(k: { id: string; name: string; role: Role; agentIds: readonly string[] }): Caps {
  return { keyId: k.id, name: k.name, role: k.role, agentIds: k.agentIds, admin: k.role === "admin" };
}

export const CapsContext = createContext<Caps | null>(null);

export function useCaps(): Caps {
  const c = useContext(CapsContext);
  if (!c) throw new Error("useCaps outside the signed-in app");
  return c;
}
