/**
 * @generated SignedSource<<4599c3eb89e75c04239c5b703449d9fc>>
 * @lightSyntaxTransform
 */

/* tslint:disable */
/* eslint-disable */
// @ts-nocheck

import { ConcreteRequest } from 'relay-runtime';
import { FragmentRefs } from "relay-runtime";
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
export type PolicyPanelSaveMutation$variables = {
  agentId: string;
  expectedVersion?: number | null | undefined;
  input: SpendPolicyInput;
};
export type PolicyPanelSaveMutation$data = {
  readonly setAgentPolicy: {
    readonly dailyLimit: number | string | null | undefined;
    readonly fingerprint: string;
    readonly id: string;
    readonly updatedAt: string;
    readonly " $fragmentSpreads": FragmentRefs<"AuditChain_agent" | "PolicyPanel_agent">;
  };
};
export type PolicyPanelSaveMutation = {
  response: PolicyPanelSaveMutation$data;
  variables: PolicyPanelSaveMutation$variables;
};

const node: ConcreteRequest = (function(){
var v0 = {
  "defaultValue": null,
  "kind": "LocalArgument",
  "name": "agentId"
},
v1 = {
  "defaultValue": null,
  "kind": "LocalArgument",
  "name": "expectedVersion"
},
v2 = {
  "defaultValue": null,
  "kind": "LocalArgument",
  "name": "input"
},
v3 = [
  {
    "kind": "Variable",
    "name": "agentId",
    "variableName": "agentId"
  },
  {
    "kind": "Variable",
    "name": "expectedVersion",
    "variableName": "expectedVersion"
  },
  {
    "kind": "Variable",
    "name": "input",
    "variableName": "input"
  }
],
v4 = {
  "alias": null,
  "args": null,
  "kind": "ScalarField",
  "name": "id",
  "storageKey": null
},
v5 = {
  "alias": null,
  "args": null,
  "kind": "ScalarField",
  "name": "fingerprint",
  "storageKey": null
},
v6 = {
  "alias": null,
  "args": null,
  "kind": "ScalarField",
  "name": "updatedAt",
  "storageKey": null
},
v7 = {
  "alias": null,
  "args": null,
  "kind": "ScalarField",
  "name": "dailyLimit",
  "storageKey": null
},
v8 = {
  "alias": null,
  "args": null,
  "kind": "ScalarField",
  "name": "actions",
  "storageKey": null
};
return {
  "fragment": {
    "argumentDefinitions": [
      (v0/*:: as any*/),
      (v1/*:: as any*/),
      (v2/*:: as any*/)
    ],
    "kind": "Fragment",
    "metadata": null,
    "name": "PolicyPanelSaveMutation",
    "selections": [
      {
        "alias": null,
        "args": (v3/*:: as any*/),
        "concreteType": "Agent",
        "kind": "LinkedField",
        "name": "setAgentPolicy",
        "plural": false,
        "selections": [
          (v4/*:: as any*/),
          (v5/*:: as any*/),
          (v6/*:: as any*/),
          (v7/*:: as any*/),
          {
            "args": null,
            "kind": "FragmentSpread",
            "name": "PolicyPanel_agent"
          },
          {
            "args": null,
            "kind": "FragmentSpread",
            "name": "AuditChain_agent"
          }
        ],
        "storageKey": null
      }
    ],
    "type": "Mutation",
    "abstractKey": null
  },
  "kind": "Request",
  "operation": {
    "argumentDefinitions": [
      (v0/*:: as any*/),
      (v2/*:: as any*/),
      (v1/*:: as any*/)
    ],
    "kind": "Operation",
    "name": "PolicyPanelSaveMutation",
    "selections": [
      {
        "alias": null,
        "args": (v3/*:: as any*/),
        "concreteType": "Agent",
        "kind": "LinkedField",
        "name": "setAgentPolicy",
        "plural": false,
        "selections": [
          (v4/*:: as any*/),
          (v5/*:: as any*/),
          (v6/*:: as any*/),
          (v7/*:: as any*/),
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
            "name": "authorizedActions",
            "storageKey": null
          },
          {
            "alias": null,
            "args": null,
            "concreteType": "SpendPolicy",
            "kind": "LinkedField",
            "name": "policy",
            "plural": false,
            "selections": [
              {
                "alias": null,
                "args": null,
                "kind": "ScalarField",
                "name": "version",
                "storageKey": null
              },
              {
                "alias": null,
                "args": null,
                "kind": "ScalarField",
                "name": "timezone",
                "storageKey": null
              },
              {
                "alias": null,
                "args": null,
                "concreteType": "SpendLimit",
                "kind": "LinkedField",
                "name": "spendLimits",
                "plural": true,
                "selections": [
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
                  (v8/*:: as any*/)
                ],
                "storageKey": null
              },
              {
                "alias": null,
                "args": null,
                "concreteType": "VelocityLimit",
                "kind": "LinkedField",
                "name": "velocityLimits",
                "plural": true,
                "selections": [
                  {
                    "alias": null,
                    "args": null,
                    "kind": "ScalarField",
                    "name": "maxCount",
                    "storageKey": null
                  },
                  {
                    "alias": null,
                    "args": null,
                    "kind": "ScalarField",
                    "name": "windowSeconds",
                    "storageKey": null
                  },
                  (v8/*:: as any*/)
                ],
                "storageKey": null
              },
              {
                "alias": null,
                "args": null,
                "concreteType": "CounterpartyRules",
                "kind": "LinkedField",
                "name": "counterparties",
                "plural": false,
                "selections": [
                  {
                    "alias": null,
                    "args": null,
                    "kind": "ScalarField",
                    "name": "allowAgents",
                    "storageKey": null
                  },
                  {
                    "alias": null,
                    "args": null,
                    "kind": "ScalarField",
                    "name": "denyAgents",
                    "storageKey": null
                  },
                  {
                    "alias": null,
                    "args": null,
                    "kind": "ScalarField",
                    "name": "allowOrgs",
                    "storageKey": null
                  },
                  {
                    "alias": null,
                    "args": null,
                    "kind": "ScalarField",
                    "name": "denyOrgs",
                    "storageKey": null
                  }
                ],
                "storageKey": null
              },
              {
                "alias": null,
                "args": null,
                "kind": "ScalarField",
                "name": "minCounterpartyScore",
                "storageKey": null
              },
              {
                "alias": null,
                "args": null,
                "concreteType": "TrustTier",
                "kind": "LinkedField",
                "name": "trustTiers",
                "plural": true,
                "selections": [
                  {
                    "alias": null,
                    "args": null,
                    "kind": "ScalarField",
                    "name": "minScore",
                    "storageKey": null
                  },
                  {
                    "alias": null,
                    "args": null,
                    "kind": "ScalarField",
                    "name": "limitPercent",
                    "storageKey": null
                  }
                ],
                "storageKey": null
              },
              {
                "alias": null,
                "args": null,
                "concreteType": "ApprovalRule",
                "kind": "LinkedField",
                "name": "approval",
                "plural": false,
                "selections": [
                  {
                    "alias": null,
                    "args": null,
                    "kind": "ScalarField",
                    "name": "above",
                    "storageKey": null
                  },
                  {
                    "alias": null,
                    "args": null,
                    "kind": "ScalarField",
                    "name": "expiresAfterSeconds",
                    "storageKey": null
                  }
                ],
                "storageKey": null
              },
              {
                "alias": null,
                "args": null,
                "kind": "ScalarField",
                "name": "requireMandate",
                "storageKey": null
              }
            ],
            "storageKey": null
          },
          {
            "alias": null,
            "args": [
              {
                "kind": "Literal",
                "name": "limit",
                "value": 25
              }
            ],
            "concreteType": "AuditEntry",
            "kind": "LinkedField",
            "name": "auditChain",
            "plural": true,
            "selections": [
              {
                "alias": null,
                "args": null,
                "kind": "ScalarField",
                "name": "sequence",
                "storageKey": null
              },
              {
                "alias": null,
                "args": null,
                "kind": "ScalarField",
                "name": "action",
                "storageKey": null
              },
              {
                "alias": null,
                "args": null,
                "kind": "ScalarField",
                "name": "timestamp",
                "storageKey": null
              },
              {
                "alias": null,
                "args": null,
                "kind": "ScalarField",
                "name": "actor",
                "storageKey": null
              },
              {
                "alias": null,
                "args": null,
                "kind": "ScalarField",
                "name": "details",
                "storageKey": null
              },
              {
                "alias": null,
                "args": null,
                "kind": "ScalarField",
                "name": "hash",
                "storageKey": null
              }
            ],
            "storageKey": "auditChain(limit:25)"
          }
        ],
        "storageKey": null
      }
    ]
  },
  "params": {
    "cacheID": "d6388d2cc153b48fcf6e1833891376fc",
    "id": null,
    "metadata": {},
    "name": "PolicyPanelSaveMutation",
    "operationKind": "mutation",
    "text": "mutation PolicyPanelSaveMutation(\n  $agentId: ID!\n  $input: SpendPolicyInput!\n  $expectedVersion: Int\n) {\n  setAgentPolicy(agentId: $agentId, input: $input, expectedVersion: $expectedVersion) {\n    id\n    fingerprint\n    updatedAt\n    dailyLimit\n    ...PolicyPanel_agent\n    ...AuditChain_agent\n  }\n}\n\nfragment AuditChain_agent on Agent {\n  auditChain(limit: 25) {\n    sequence\n    action\n    timestamp\n    actor\n    details\n    hash\n  }\n  id\n}\n\nfragment PolicyPanel_agent on Agent {\n  id\n  currency\n  authorizedActions\n  policy {\n    version\n    timezone\n    spendLimits {\n      amount\n      window\n      mode\n      actions\n    }\n    velocityLimits {\n      maxCount\n      windowSeconds\n      actions\n    }\n    counterparties {\n      allowAgents\n      denyAgents\n      allowOrgs\n      denyOrgs\n    }\n    minCounterpartyScore\n    trustTiers {\n      minScore\n      limitPercent\n    }\n    approval {\n      above\n      expiresAfterSeconds\n    }\n    requireMandate\n  }\n}\n"
  }
};
})();

(node as any).hash = "e1d92d27751ce29b1bc419187a848bdc";

export default node;
