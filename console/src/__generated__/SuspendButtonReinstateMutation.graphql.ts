/**
 * @generated SignedSource<<889b515319f9e29a88e81bf7b0305a8f>>
 * @lightSyntaxTransform
 */

/* tslint:disable */
/* eslint-disable */
// @ts-nocheck

import { ConcreteRequest } from 'relay-runtime';
export type AgentStatus = "active" | "suspended";
export type SuspendButtonReinstateMutation$variables = {
  id: string;
  reason?: string | null | undefined;
};
export type SuspendButtonReinstateMutation$data = {
  readonly reinstateAgent: {
    readonly id: string;
    readonly status: AgentStatus;
    readonly trust: {
      readonly assessment: string;
      readonly factors: {
        readonly confidence: number;
      };
      readonly score: number;
    };
    readonly updatedAt: string;
  };
};
export type SuspendButtonReinstateMutation = {
  response: SuspendButtonReinstateMutation$data;
  variables: SuspendButtonReinstateMutation$variables;
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
    "concreteType": "Agent",
    "kind": "LinkedField",
    "name": "reinstateAgent",
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
        "name": "updatedAt",
        "storageKey": null
      },
      {
        "alias": null,
        "args": null,
        "concreteType": "TrustProfile",
        "kind": "LinkedField",
        "name": "trust",
        "plural": false,
        "selections": [
          {
            "alias": null,
            "args": null,
            "kind": "ScalarField",
            "name": "score",
            "storageKey": null
          },
          {
            "alias": null,
            "args": null,
            "kind": "ScalarField",
            "name": "assessment",
            "storageKey": null
          },
          {
            "alias": null,
            "args": null,
            "concreteType": "TrustFactors",
            "kind": "LinkedField",
            "name": "factors",
            "plural": false,
            "selections": [
              {
                "alias": null,
                "args": null,
                "kind": "ScalarField",
                "name": "confidence",
                "storageKey": null
              }
            ],
            "storageKey": null
          }
        ],
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
    "name": "SuspendButtonReinstateMutation",
    "selections": (v1/*:: as any*/),
    "type": "Mutation",
    "abstractKey": null
  },
  "kind": "Request",
  "operation": {
    "argumentDefinitions": (v0/*:: as any*/),
    "kind": "Operation",
    "name": "SuspendButtonReinstateMutation",
    "selections": (v1/*:: as any*/)
  },
  "params": {
    "cacheID": "c30f602f0310fa51272a90d9db06b2dc",
    "id": null,
    "metadata": {},
    "name": "SuspendButtonReinstateMutation",
    "operationKind": "mutation",
    "text": "mutation SuspendButtonReinstateMutation(\n  $id: ID!\n  $reason: String\n) {\n  reinstateAgent(id: $id, reason: $reason) {\n    id\n    status\n    updatedAt\n    trust {\n      score\n      assessment\n      factors {\n        confidence\n      }\n    }\n  }\n}\n"
  }
};
})();

(node as any).hash = "ef8afccfd2abd09c6fd1ab59e2b0dcd1";

export default node;
