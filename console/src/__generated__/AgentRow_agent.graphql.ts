/**
 * @generated SignedSource<<90880f4a862c061a7a62641853046f55>>
 * @lightSyntaxTransform
 */

/* tslint:disable */
/* eslint-disable */
// @ts-nocheck

import { ReaderFragment } from 'relay-runtime';
export type AgentStatus = "active" | "suspended";
import { FragmentRefs } from "relay-runtime";
export type AgentRow_agent$data = {
  readonly currency: string;
  readonly dailyLimit: number | string | null | undefined;
  readonly id: string;
  readonly name: string;
  readonly spendingLimit: number | string;
  readonly status: AgentStatus;
  readonly trust: {
    readonly assessment: string;
    readonly factors: {
      readonly confidence: number;
    };
    readonly score: number;
  };
  readonly " $fragmentSpreads": FragmentRefs<"SuspendButton_agent">;
  readonly " $fragmentType": "AgentRow_agent";
};
export type AgentRow_agent$key = {
  readonly " $data"?: AgentRow_agent$data;
  readonly " $fragmentSpreads": FragmentRefs<"AgentRow_agent">;
};

const node: ReaderFragment = {
  "argumentDefinitions": [],
  "kind": "Fragment",
  "metadata": null,
  "name": "AgentRow_agent",
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
      "name": "name",
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
      "name": "spendingLimit",
      "storageKey": null
    },
    {
      "alias": null,
      "args": null,
      "kind": "ScalarField",
      "name": "dailyLimit",
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
    },
    {
      "args": null,
      "kind": "FragmentSpread",
      "name": "SuspendButton_agent"
    }
  ],
  "type": "Agent",
  "abstractKey": null
};

(node as any).hash = "6039efad7e2fe8bb0c3e3baed6e4f45f";

export default node;
