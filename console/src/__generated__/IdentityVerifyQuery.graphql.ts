/**
 * @generated SignedSource<<aa81531a3c03e0d38f89d47fa0c6d60a>>
 * @lightSyntaxTransform
 */

/* tslint:disable */
/* eslint-disable */
// @ts-nocheck

import { ConcreteRequest } from 'relay-runtime';
export type IdentityVerifyQuery$variables = {
  id: string;
};
export type IdentityVerifyQuery$data = {
  readonly verifyAgent: {
    readonly auditChainValid: boolean;
    readonly fingerprint: string;
    readonly verified: boolean;
  };
};
export type IdentityVerifyQuery = {
  response: IdentityVerifyQuery$data;
  variables: IdentityVerifyQuery$variables;
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
    "concreteType": "AgentVerification",
    "kind": "LinkedField",
    "name": "verifyAgent",
    "plural": false,
    "selections": [
      {
        "alias": null,
        "args": null,
        "kind": "ScalarField",
        "name": "verified",
        "storageKey": null
      },
      {
        "alias": null,
        "args": null,
        "kind": "ScalarField",
        "name": "fingerprint",
        "storageKey": null
      },
      {
        "alias": null,
        "args": null,
        "kind": "ScalarField",
        "name": "auditChainValid",
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
    "name": "IdentityVerifyQuery",
    "selections": (v1/*:: as any*/),
    "type": "Query",
    "abstractKey": null
  },
  "kind": "Request",
  "operation": {
    "argumentDefinitions": (v0/*:: as any*/),
    "kind": "Operation",
    "name": "IdentityVerifyQuery",
    "selections": (v1/*:: as any*/)
  },
  "params": {
    "cacheID": "4156c33d3e397c75be08ae9f62946098",
    "id": null,
    "metadata": {},
    "name": "IdentityVerifyQuery",
    "operationKind": "query",
    "text": "query IdentityVerifyQuery(\n  $id: ID!\n) {\n  verifyAgent(id: $id) {\n    verified\n    fingerprint\n    auditChainValid\n  }\n}\n"
  }
};
})();

(node as any).hash = "4c401dc9e0af176de1dc39867165aa3c";

export default node;
