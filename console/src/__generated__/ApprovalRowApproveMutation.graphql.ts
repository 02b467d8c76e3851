/**
 * @generated SignedSource<<e3e89f7df6f2059effb5ad95e57f9d3a>>
 * @lightSyntaxTransform
 */

/* tslint:disable */
/* eslint-disable */
// @ts-nocheck

import { ConcreteRequest } from 'relay-runtime';
export type TransactionStatus = "completed" | "declined" | "expired" | "pending_approval" | "reversed";
export type ApprovalRowApproveMutation$variables = {
  id: string;
};
export type ApprovalRowApproveMutation$data = {
  readonly approveTransaction: {
    readonly createdAt: string;
    readonly decidedAt: string | null | undefined;
    readonly decidedBy: string | null | undefined;
    readonly expiresAt: string | null | undefined;
    readonly id: string;
    readonly status: TransactionStatus;
  };
};
export type ApprovalRowApproveMutation = {
  response: ApprovalRowApproveMutation$data;
  variables: ApprovalRowApproveMutation$variables;
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
    "concreteType": "Transaction",
    "kind": "LinkedField",
    "name": "approveTransaction",
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
        "name": "createdAt",
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
      },
      {
        "alias": null,
        "args": null,
        "kind": "ScalarField",
        "name": "expiresAt",
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
    "name": "ApprovalRowApproveMutation",
    "selections": (v1/*:: as any*/),
    "type": "Mutation",
    "abstractKey": null
  },
  "kind": "Request",
  "operation": {
    "argumentDefinitions": (v0/*:: as any*/),
    "kind": "Operation",
    "name": "ApprovalRowApproveMutation",
    "selections": (v1/*:: as any*/)
  },
  "params": {
    "cacheID": "393a00f298f921ef4ac633eb8c3ebfa7",
    "id": null,
    "metadata": {},
    "name": "ApprovalRowApproveMutation",
    "operationKind": "mutation",
    "text": "mutation ApprovalRowApproveMutation(\n  $id: ID!\n) {\n  approveTransaction(id: $id) {\n    id\n    status\n    createdAt\n    decidedAt\n    decidedBy\n    expiresAt\n  }\n}\n"
  }
};
})();

(node as any).hash = "9e5ea8eef4feccab5d74001e5d15841a";

export default node;
