/**
 * @generated SignedSource<<47d1b1b8de5efdca7db8aa028e8ff0d4>>
 * @lightSyntaxTransform
 */

/* tslint:disable */
/* eslint-disable */
// @ts-nocheck

import { ConcreteRequest } from 'relay-runtime';
export type MandateStatus = "active" | "exhausted" | "expired" | "revoked";
export type MandatesRevokeMutation$variables = {
  id: string;
  reason?: string | null | undefined;
};
export type MandatesRevokeMutation$data = {
  readonly revokeMandate: {
    readonly id: string;
    readonly revokedAt: string | null | undefined;
    readonly status: MandateStatus;
  };
};
export type MandatesRevokeMutation = {
  response: MandatesRevokeMutation$data;
  variables: MandatesRevokeMutation$variables;
};

const node: ConcreteRequest = (function(){
var v0 = [
  {
    "defaultValue": null,
    "kind": "LocalArgument",
    "name": "id"
  },
  {
    "defaultValue": null,
    "kind": "LocalArgument",
    "name": "reason"
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
      },
      {
        "kind": "Variable",
        "name": "reason",
        "variableName": "reason"
      }
    ],
    "concreteType": "Mandate",
    "kind": "LinkedField",
    "name": "revokeMandate",
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
    "name": "MandatesRevokeMutation",
    "selections": (v1/*:: as any*/),
    "type": "Mutation",
    "abstractKey": null
  },
  "kind": "Request",
  "operation": {
    "argumentDefinitions": (v0/*:: as any*/),
    "kind": "Operation",
    "name": "MandatesRevokeMutation",
    "selections": (v1/*:: as any*/)
  },
  "params": {
    "cacheID": "5c1162b2a92cebb1fc0bd45dfae446ec",
    "id": null,
    "metadata": {},
    "name": "MandatesRevokeMutation",
    "operationKind": "mutation",
    "text": "mutation MandatesRevokeMutation(\n  $id: ID!\n  $reason: String\n) {\n  revokeMandate(id: $id, reason: $reason) {\n    id\n    status\n    revokedAt\n  }\n}\n"
  }
};
})();

(node as any).hash = "7b37786a39a0eb2e7bdd6055ad7b9688";

export default node;
