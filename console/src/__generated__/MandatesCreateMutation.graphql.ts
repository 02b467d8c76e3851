/**
 * @generated SignedSource<<94d5698c6e64a909a2045394ccb6cb9f>>
 * @lightSyntaxTransform
 */

/* tslint:disable */
/* eslint-disable */
// @ts-nocheck

import { ConcreteRequest } from 'relay-runtime';
export type MandateStatus = "active" | "exhausted" | "expired" | "revoked";
export type CreateMandateInput = {
  actions: ReadonlyArray<string>;
  agentId: string;
  budget: number | string;
  counterpartyAgents?: ReadonlyArray<string> | null | undefined;
  counterpartyOrgs?: ReadonlyArray<string> | null | undefined;
  description: string;
  expiresAt: string;
  maxPerTransaction?: number | string | null | undefined;
  maxUses?: number | null | undefined;
  notBefore?: string | null | undefined;
};
export type MandatesCreateMutation$variables = {
  input: CreateMandateInput;
};
export type MandatesCreateMutation$data = {
  readonly createMandate: {
    readonly id: string;
    readonly status: MandateStatus;
  };
};
export type MandatesCreateMutation = {
  response: MandatesCreateMutation$data;
  variables: MandatesCreateMutation$variables;
};

const node: ConcreteRequest = (function(){
var v0 = [
  {
    "defaultValue": null,
    "kind": "LocalArgument",
    "name": "input"
  }
],
v1 = [
  {
    "alias": null,
    "args": [
      {
        "kind": "Variable",
        "name": "input",
        "variableName": "input"
      }
    ],
    "concreteType": "Mandate",
    "kind": "LinkedField",
    "name": "createMandate",
    "plural": false,
    "selections": [
      {
        "alias": null,
        "args": null,
        "kind": "ScalarField",
        "name": "id",
        "storageKey": null
      },
      {
        "alias": null,
        "args": null,
        "kind": "ScalarField",
        "name": "status",
        "storageKey": null
      }
    ],
    "storageKey": null
  }
];
return {
  "fragment": {
    "argumentDefinitions": (v0/*:: as any*/),
    "kind": "Fragment",
    "metadata": null,
    "name": "MandatesCreateMutation",
    "selections": (v1/*:: as any*/),
    "type": "Mutation",
    "abstractKey": null
  },
  "kind": "Request",
  "operation": {
    "argumentDefinitions": (v0/*:: as any*/),
    "kind": "Operation",
    "name": "MandatesCreateMutation",
    "selections": (v1/*:: as any*/)
  },
  "params": {
    "cacheID": "0dbcf1172dcf5ac1df08b629e09aaf13",
    "id": null,
    "metadata": {},
    "name": "MandatesCreateMutation",
    "operationKind": "mutation",
    "text": "mutation MandatesCreateMutation(\n  $input: CreateMandateInput!\n) {\n  createMandate(input: $input) {\n    id\n    status\n  }\n}\n"
  }
};
})();

(node as any).hash = "901b6348235862104b8b330014bec5e2";

export default node;
