/**
 * @generated SignedSource<<b1f8fba7a11db4f6bb499052b9a06a0d>>
 * @lightSyntaxTransform
 */

/* tslint:disable */
/* eslint-disable */
// @ts-nocheck

import { ReaderFragment } from 'relay-runtime';
export type AgentStatus = "active" | "suspended";
export type Environment = "production" | "sandbox";
import { FragmentRefs } from "relay-runtime";
export type Identity_agent$data = {
  readonly authorizedActions: ReadonlyArray<string>;
  readonly createdAt: string;
  readonly currency: string;
  readonly dailyLimit: number | string | null | undefined;
  readonly environment: Environment;
  readonly fingerprint: string;
  readonly id: string;
  readonly name: string;
  readonly spendingLimit: number | string;
  readonly status: AgentStatus;
  readonly updatedAt: string;
  readonly " $fragmentSpreads": FragmentRefs<"SuspendButton_agent">;
  readonly " $fragmentType": "Identity_agent";
};
export type Identity_agent$key = {
  readonly " $data"?: Identity_agent$data;
  readonly " $fragmentSpreads": FragmentRefs<"Identity_agent">;
};

const node: ReaderFragment = {
  "argumentDefinitions": [],
  "kind": "Fragment",
  "metadata": null,
  "name": "Identity_agent",
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
      "name": "environment",
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
      "name": "fingerprint",
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
      "name": "updatedAt",
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

(node as any).hash = "4d7e3fa64dd11377e34025f387192f25";

export default node;
