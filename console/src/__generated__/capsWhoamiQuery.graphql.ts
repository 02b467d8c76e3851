/**
 * @generated SignedSource<<e4aa8511b6629e62358459f7107e1039>>
 * @lightSyntaxTransform
 */

/* tslint:disable */
/* eslint-disable */
// @ts-nocheck

import { ConcreteRequest } from 'relay-runtime';
export type ApiKeyRole = "admin" | "agent" | "readonly";
export type capsWhoamiQuery$variables = Record<PropertyKey, never>;
export type capsWhoamiQuery$data = {
  readonly whoami: {
    readonly agentIds: ReadonlyArray<string>;
    readonly id: string;
    readonly name: string;
    readonly role: ApiKeyRole;
  };
};
export type capsWhoamiQuery = {
  response: capsWhoamiQuery$data;
  variables: capsWhoamiQuery$variables;
};

const node: ConcreteRequest = (function(){
var v0 = [
  {
    "alias": null,
    "args": null,
    "concreteType": "ApiKey",
    "kind": "LinkedField",
    "name": "whoami",
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
        "name": "name",
        "storageKey": null
      },
      {
        "alias": null,
        "args": null,
        "kind": "ScalarField",
        "name": "role",
        "storageKey": null
      },
      {
        "alias": null,
        "args": null,
        "kind": "ScalarField",
        "name": "agentIds",
        "storageKey": null
      }
    ],
    "storageKey": null
  }
];
return {
  "fragment": {
    "argumentDefinitions": [],
    "kind": "Fragment",
    "metadata": null,
    "name": "capsWhoamiQuery",
    "selections": (v0/*:: as any*/),
    "type": "Query",
    "abstractKey": null
  },
  "kind": "Request",
  "operation": {
    "argumentDefinitions": [],
    "kind": "Operation",
    "name": "capsWhoamiQuery",
    "selections": (v0/*:: as any*/)
  },
  "params": {
    "cacheID": "92029110a1e7e1fec6ed9f0f985a9354",
    "id": null,
    "metadata": {},
    "name": "capsWhoamiQuery",
    "operationKind": "query",
    "text": "query capsWhoamiQuery {\n  whoami {\n    id\n    name\n    role\n    agentIds\n  }\n}\n"
  }
};
})();

(node as any).hash = "1b50853d9e2a76e2dbfbdc36afc7053d";

export default node;
