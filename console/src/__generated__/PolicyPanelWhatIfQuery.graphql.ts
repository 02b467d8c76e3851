/**
 * @generated SignedSource<<adfb7281aab01f6dc7440cc95f4c75c1>>
 * @lightSyntaxTransform
 */

/* tslint:disable */
/* eslint-disable */
// @ts-nocheck

import { ConcreteRequest } from 'relay-runtime';
export type LimitWindow = "day" | "month" | "total" | "week";
export type WindowMode = "calendar" | "rolling";
export type SpendPolicyInput = {
  approval?: ApprovalRuleInput | null | undefined;
  counterparties?: CounterpartyRulesInput | null | undefined;
  minCounterpartyScore?: number | null | undefined;
  requireMandate?: boolean | null | undefined;
  spendLimits?: ReadonlyArray<SpendLimitInput> | null | undefined;
  timezone?: string | null | undefined;
  trustTiers?: ReadonlyArray<TrustTierInput> | null | undefined;
  velocityLimits?: ReadonlyArray<VelocityLimitInput> | null | undefined;
};
export type SpendLimitInput = {
  actions?: ReadonlyArray<string> | null | undefined;
  amount: number | string;
  mode?: WindowMode;
  window: LimitWindow;
};
export type VelocityLimitInput = {
  actions?: ReadonlyArray<string> | null | undefined;
  maxCount: number;
  windowSeconds: number;
};
export type CounterpartyRulesInput = {
  allowAgents?: ReadonlyArray<string>;
  allowOrgs?: ReadonlyArray<string>;
  denyAgents?: ReadonlyArray<string>;
  denyOrgs?: ReadonlyArray<string>;
};
export type TrustTierInput = {
  limitPercent: number;
  minScore: number;
};
export type ApprovalRuleInput = {
  above: number | string;
  expiresAfterSeconds: number;
};
export type PolicyPanelWhatIfQuery$variables = {
  agentId: string;
  policy: SpendPolicyInput;
  since: string;
};
export type PolicyPanelWhatIfQuery$data = {
  readonly simulatePolicy: {
    readonly allowed: number;
    readonly heldForApproval: number;
    readonly outcomes: ReadonlyArray<{
      readonly allowed: boolean;
      readonly reason: string;
      readonly reasonCode: string;
      readonly requiresApproval: boolean;
      readonly transaction: {
        readonly amount: number | string;
        readonly createdAt: string;
        readonly currency: string;
        readonly id: string;
      };
    }>;
    readonly peaks: ReadonlyArray<{
      readonly actions: ReadonlyArray<string> | null | undefined;
      readonly at: string | null | undefined;
      readonly limit: number | string;
      readonly mode: WindowMode;
      readonly peak: number | string;
      readonly window: LimitWindow;
    }>;
    readonly refused: number;
    readonly refusedByCode: ReadonlyArray<{
      readonly count: number;
      readonly reasonCode: string;
    }>;
    readonly replayed: number;
  };
};
export type PolicyPanelWhatIfQuery = {
  response: PolicyPanelWhatIfQuery$data;
  variables: PolicyPanelWhatIfQuery$variables;
};

const node: ConcreteRequest = (function(){
var v0 = [
  {
    "defaultValue": null,
    "kind": "LocalArgument",
    "name": "agentId"
  },
  {
    "defaultValue": null,
    "kind": "LocalArgument",
    "name": "policy"
  },
  {
    "defaultValue": null,
    "kind": "LocalArgument",
    "name": "since"
  }
],
v1 = {
  "alias": null,
  "args": null,
  "kind": "ScalarField",
  "name": "allowed",
  "storageKey": null
},
v2 = {
  "alias": null,
  "args": null,
  "kind": "ScalarField",
  "name": "reasonCode",
  "storageKey": null
},
v3 = [
  {
    "alias": null,
    "args": [
      {
        "kind": "Variable",
        "name": "agentId",
        "variableName": "agentId"
      },
      {
        "kind": "Variable",
        "name": "policy",
        "variableName": "policy"
      },
      {
        "kind": "Variable",
        "name": "since",
        "variableName": "since"
      }
    ],
    "concreteType": "PolicySimulation",
    "kind": "LinkedField",
    "name": "simulatePolicy",
    "plural": false,
    "selections": [
      {
        "alias": null,
        "args": null,
        "kind": "ScalarField",
        "name": "replayed",
        "storageKey": null
      },
      (v1/*:: as any*/),
      {
        "alias": null,
        "args": null,
        "kind": "ScalarField",
        "name": "refused",
        "storageKey": null
      },
      {
        "alias": null,
        "args": null,
        "kind": "ScalarField",
        "name": "heldForApproval",
        "storageKey": null
      },
      {
        "alias": null,
        "args": null,
        "concreteType": "ReasonCount",
        "kind": "LinkedField",
        "name": "refusedByCode",
        "plural": true,
        "selections": [
          (v2/*:: as any*/),
          {
            "alias": null,
            "args": null,
            "kind": "ScalarField",
            "name": "count",
            "storageKey": null
          }
        ],
        "storageKey": null
      },
      {
        "alias": null,
        "args": null,
        "concreteType": "LimitPeak",
        "kind": "LinkedField",
        "name": "peaks",
        "plural": true,
        "selections": [
          {
            "alias": null,
            "args": null,
            "kind": "ScalarField",
            "name": "window",
            "storageKey": null
          },
          {
            "alias": null,
            "args": null,
            "kind": "ScalarField",
            "name": "mode",
            "storageKey": null
          },
          {
            "alias": null,
            "args": null,
            "kind": "ScalarField",
            "name": "actions",
            "storageKey": null
          },
          {
            "alias": null,
            "args": null,
            "kind": "ScalarField",
            "name": "limit",
            "storageKey": null
          },
          {
            "alias": null,
            "args": null,
            "kind": "ScalarField",
            "name": "peak",
            "storageKey": null
          },
          {
            "alias": null,
            "args": null,
            "kind": "ScalarField",
            "name": "at",
            "storageKey": null
          }
        ],
        "storageKey": null
      },
      {
        "alias": null,
        "args": null,
        "concreteType": "SimulatedOutcome",
        "kind": "LinkedField",
        "name": "outcomes",
        "plural": true,
        "selections": [
          (v2/*:: as any*/),
          {
            "alias": null,
            "args": null,
            "kind": "ScalarField",
            "name": "reason",
            "storageKey": null
          },
          (v1/*:: as any*/),
          {
            "alias": null,
            "args": null,
            "kind": "ScalarField",
            "name": "requiresApproval",
            "storageKey": null
          },
          {
            "alias": null,
            "args": null,
            "concreteType": "Transaction",
            "kind": "LinkedField",
            "name": "transaction",
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
                "name": "amount",
                "storageKey": null
              },
              {
                "alias": null,
                "args": null,
                "kind": "ScalarField",
                "name": "currency",
                "storageKey": null
              },
              {
                "alias": null,
                "args": null,
                "kind": "ScalarField",
                "name": "createdAt",
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
    "name": "PolicyPanelWhatIfQuery",
    "selections": (v3/*:: as any*/),
    "type": "Query",
    "abstractKey": null
  },
  "kind": "Request",
  "operation": {
    "argumentDefinitions": (v0/*:: as any*/),
    "kind": "Operation",
    "name": "PolicyPanelWhatIfQuery",
    "selections": (v3/*:: as any*/)
  },
  "params": {
    "cacheID": "88f3f2902a161b9b0492451e09853224",
    "id": null,
    "metadata": {},
    "name": "PolicyPanelWhatIfQuery",
    "operationKind": "query",
    "text": "query PolicyPanelWhatIfQuery(\n  $agentId: ID!\n  $policy: SpendPolicyInput!\n  $since: Time!\n) {\n  simulatePolicy(agentId: $agentId, policy: $policy, since: $since) {\n    replayed\n    allowed\n    refused\n    heldForApproval\n    refusedByCode {\n      reasonCode\n      count\n    }\n    peaks {\n      window\n      mode\n      actions\n      limit\n      peak\n      at\n    }\n    outcomes {\n      reasonCode\n      reason\n      allowed\n      requiresApproval\n      transaction {\n        id\n        amount\n        currency\n        createdAt\n      }\n    }\n  }\n}\n"
  }
};
})();

(node as any).hash = "355203ba678de4765abd10185fbcbb20";

export default node;
