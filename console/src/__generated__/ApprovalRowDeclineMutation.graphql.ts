/**
 * @generated SignedSource<<754ec375a1255de78ef082ece335b8be>>
 * @lightSyntaxTransform
 */

/* tslint:disable */
/* eslint-disable */
// @ts-nocheck

import { ConcreteRequest } from 'relay-runtime';
export type TransactionStatus = "completed" | "declined" | "expired" | "pending_approval" | "reversed";
export type ApprovalRowDeclineMutation$variables = {
  id: string;
  reason: string;
};
export type ApprovalRowDeclineMutation$data = {
  readonly declineTransaction: {
    readonly decidedAt: string | null | undefined;
    readonly decidedBy: string | null | undefined;
    readonly id: string;
    readonly reason: string | null | undefined;
    readonly status: TransactionStatus;
  };
};
export type ApprovalRowDeclineMutation = {
  response: ApprovalRowDeclineMutation$data;
  variables: ApprovalRowDeclineMutation$variables;
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
    "concreteType": "Transaction",
    "kind": "LinkedField",
    "name": "declineTransaction",
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
        "name": "reason",
        "storageKey": null
      },
      {
        "alias": null,
        "args": null,
        "kind": "ScalarField",
        "name": "decidedAt",
        "storageKey": null
      },
      {
        "alias": null,
        "args": null,
        "kind": "ScalarField",
        "name": "decidedBy",
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
    "name": "ApprovalRowDeclineMutation",
    "selections": (v1/*:: as any*/),
    "type": "Mutation",
    "abstractKey": null
  },
  "kind": "Request",
  "operation": {
    "argumentDefinitions": (v0/*:: as any*/),
    "kind": "Operation",
    "name": "ApprovalRowDeclineMutation",
    "selections": (v1/*:: as any*/)
  },
  "params": {
    "cacheID": "2887e9af839a3052f63128f82cf19b1c",
    "id": null,
    "metadata": {},
    "name": "ApprovalRowDeclineMutation",
    "operationKind": "mutation",
    "text": "mutation ApprovalRowDeclineMutation(\n  $id: ID!\n  $reason: String!\n) {\n  declineTransaction(id: $id, reason: $reason) {\n    id\n    status\n    reason\n    decidedAt\n    decidedBy\n  }\n}\n"
  }
};
})();

(node as any).hash = "6e716d96f73033f52d793e6f93762fb7";

export default node;
