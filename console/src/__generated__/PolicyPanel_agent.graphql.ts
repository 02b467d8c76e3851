/**
 * @generated SignedSource<<bbd57fe462c9d5c767c21aea7afbc218>>
 * @lightSyntaxTransform
 */

/* tslint:disable */
/* eslint-disable */
// @ts-nocheck

import { ReaderFragment } from 'relay-runtime';
export type LimitWindow = "day" | "month" | "total" | "week";
export type WindowMode = "calendar" | "rolling";
import { FragmentRefs } from "relay-runtime";
export type PolicyPanel_agent$data = {
  readonly authorizedActions: ReadonlyArray<string>;
  readonly currency: string;
  readonly id: string;
  readonly policy: {
    readonly approval: {
      readonly above: number | string;
      readonly expiresAfterSeconds: number;
    } | null | undefined;
    readonly counterparties: {
      readonly allowAgents: ReadonlyArray<string>;
      readonly allowOrgs: ReadonlyArray<string>;
      readonly denyAgents: ReadonlyArray<string>;
      readonly denyOrgs: ReadonlyArray<string>;
    };
    readonly minCounterpartyScore: number | null | undefined;
    readonly requireMandate: boolean;
    readonly spendLimits: ReadonlyArray<{
      readonly actions: ReadonlyArray<string> | null | undefined;
      readonly amount: number | string;
      readonly mode: WindowMode;
      readonly window: LimitWindow;
    }>;
    readonly timezone: string;
    readonly trustTiers: ReadonlyArray<{
      readonly limitPercent: number;
      readonly minScore: number;
    }>;
    readonly velocityLimits: ReadonlyArray<{
      readonly actions: ReadonlyArray<string> | null | undefined;
      readonly maxCount: number;
      readonly windowSeconds: number;
    }>;
    readonly version: number;
  };
  readonly " $fragmentType": "PolicyPanel_agent";
};
export type PolicyPanel_agent$key = {
  readonly " $data"?: PolicyPanel_agent$data;
  readonly " $fragmentSpreads": FragmentRefs<"PolicyPanel_agent">;
};

import PolicyPanelRefetchQuery_graphql from './PolicyPanelRefetchQuery.graphql';

const node: ReaderFragment = (function(){
var v0 = {
  "alias": null,
  "args": null,
  "kind": "ScalarField",
  "name": "actions",
  "storageKey": null
};
return {
  "argumentDefinitions": [],
  "kind": "Fragment",
  "metadata": {
    "refetch": {
      "connection": null,
      "fragmentPathInResult": [
        "node"
      ],
      "operation": PolicyPanelRefetchQuery_graphql,
      "identifierInfo": {
        "identifierField": "id",
        "identifierQueryVariableName": "id"
      }
    }
  },
  "name": "PolicyPanel_agent",
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
            (v0/*:: as any*/)
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
            (v0/*:: as any*/)
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
    }
  ],
  "type": "Agent",
  "abstractKey": null
};
})();

(node as any).hash = "761729da4cbdf90c5865e118a8f66bda";

export default node;
