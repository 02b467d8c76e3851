/**
 * @generated SignedSource<<fe9756fe76df5eeb3915e00cb0bd29d3>>
 * @lightSyntaxTransform
 */

/* tslint:disable */
/* eslint-disable */
// @ts-nocheck

import { ConcreteRequest } from 'relay-runtime';
export type AgentStatus = "active" | "suspended";
export type SuspendButtonSuspendMutation$variables = {
  id: string;
  reason?: string | null | undefined;
};
export type SuspendButtonSuspendMutation$data = {
  readonly suspendAgent: {
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
export type SuspendButtonSuspendMutation = {
  response: SuspendButtonSuspendMutation$data;
  variables: SuspendButtonSuspendMutation$variables;
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
    "name": "suspendAgent",
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
    "name": "SuspendButtonSuspendMutation",
    "selections": (v1/*:: as any*/),
    "type": "Mutation",
    "abstractKey": null
  },
  "kind": "Request",
  "operation": {
    "argumentDefinitions": (v0/*:: as any*/),
    "kind": "Operation",
    "name": "SuspendButtonSuspendMutation",
    "selections": (v1/*:: as any*/)
  },
  "params": {
    "cacheID": "938e767020489c98a81dc07a4f6e0765",
    "id": null,
    "metadata": {},
    "name": "SuspendButtonSuspendMutation",
    "operationKind": "mutation",
    "text": "mutation SuspendButtonSuspendMutation(\n  $id: ID!\n  $reason: String\n) {\n  suspendAgent(id: $id, reason: $reason) {\n    id\n    status\n    updatedAt\n    trust {\n      score\n      assessment\n      factors {\n        confidence\n      }\n    }\n  }\n}\n"
  }
};
})();

(node as any).hash = "9cfc21bb9b2f0a0f4f719fd661d06ae2";

export default node;
