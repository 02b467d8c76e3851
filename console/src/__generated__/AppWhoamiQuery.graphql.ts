/**
 * @generated SignedSource<<f42a281fda8b903003c40515680c0819>>
 * @lightSyntaxTransform
 */

/* tslint:disable */
/* eslint-disable */
// @ts-nocheck

import { ConcreteRequest } from 'relay-runtime';
export type ApiKeyRole = "admin" | "agent" | "readonly";
export type AppWhoamiQuery$variables = Record<PropertyKey, never>;
export type AppWhoamiQuery$data = {
  readonly whoami: {
    readonly agentIds: ReadonlyArray<string>;
    readonly id: string;
    readonly name: string;
    readonly role: ApiKeyRole;
  };
};
export type AppWhoamiQuery = {
  response: AppWhoamiQuery$data;
  variables: AppWhoamiQuery$variables;
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
    "name": "AppWhoamiQuery",
    "selections": (v0/*:: as any*/),
    "type": "Query",
    "abstractKey": null
  },
  "kind": "Request",
  "operation": {
    "argumentDefinitions": [],
    "kind": "Operation",
    "name": "AppWhoamiQuery",
    "selections": (v0/*:: as any*/)
  },
  "params": {
    "cacheID": "a9b7ef061fd3a3ad06be3ad5d385ee56",
    "id": null,
    "metadata": {},
    "name": "AppWhoamiQuery",
    "operationKind": "query",
    "text": "query AppWhoamiQuery {\n  whoami {\n    id\n    name\n    role\n    agentIds\n  }\n}\n"
  }
};
})();

(node as any).hash = "56018d25e75e7da0e2b59f021d85b5fa";

export default node;
