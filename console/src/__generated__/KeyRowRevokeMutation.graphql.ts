/**
 * @generated SignedSource<<4882098a067d2386310d08f48045d415>>
 * @lightSyntaxTransform
 */

/* tslint:disable */
/* eslint-disable */
// @ts-nocheck

import { ConcreteRequest } from 'relay-runtime';
export type KeyRowRevokeMutation$variables = {
  id: string;
};
export type KeyRowRevokeMutation$data = {
  readonly revokeApiKey: {
    readonly id: string;
    readonly revokedAt: string | null | undefined;
  };
};
export type KeyRowRevokeMutation = {
  response: KeyRowRevokeMutation$data;
  variables: KeyRowRevokeMutation$variables;
};

const node: ConcreteRequest = (function(){
var v0 = [
  {
    "defaultValue": null,
    "kind": "LocalArgument",
    "name": "id"
  }
],
v1 = [
  {
    "alias": null,
    "args": [
      {
        "kind": "Variable",
        "name": "id",
        "variableName": "id"
      }
    ],
    "concreteType": "ApiKey",
    "kind": "LinkedField",
    "name": "revokeApiKey",
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
        "name": "revokedAt",
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
    "name": "KeyRowRevokeMutation",
    "selections": (v1/*:: as any*/),
    "type": "Mutation",
    "abstractKey": null
  },
  "kind": "Request",
  "operation": {
    "argumentDefinitions": (v0/*:: as any*/),
    "kind": "Operation",
    "name": "KeyRowRevokeMutation",
    "selections": (v1/*:: as any*/)
  },
  "params": {
    "cacheID": "1338087567c7f6839b141409fc47dcdb",
    "id": null,
    "metadata": {},
    "name": "KeyRowRevokeMutation",
    "operationKind": "mutation",
    "text": "mutation KeyRowRevokeMutation(\n  $id: ID!\n) {\n  revokeApiKey(id: $id) {\n    id\n    revokedAt\n  }\n}\n"
  }
};
})();

(node as any).hash = "fac5a901542420de7982646da13aaec6";

export default node;
