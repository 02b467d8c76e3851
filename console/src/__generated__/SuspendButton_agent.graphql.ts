/**
 * @generated SignedSource<<a97751537da9a8ec57ee5e6902fc6962>>
 * @lightSyntaxTransform
 */

/* tslint:disable */
/* eslint-disable */
// @ts-nocheck

import { ReaderFragment } from 'relay-runtime';
export type AgentStatus = "active" | "suspended";
import { FragmentRefs } from "relay-runtime";
export type SuspendButton_agent$data = {
  readonly id: string;
  readonly name: string;
  readonly status: AgentStatus;
  readonly " $fragmentType": "SuspendButton_agent";
};
export type SuspendButton_agent$key = {
  readonly " $data"?: SuspendButton_agent$data;
  readonly " $fragmentSpreads": FragmentRefs<"SuspendButton_agent">;
};

const node: ReaderFragment = {
  "argumentDefinitions": [],
  "kind": "Fragment",
  "metadata": null,
  "name": "SuspendButton_agent",
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
    }
  ],
  "type": "Agent",
  "abstractKey": null
};

(node as any).hash = "1e8dceb92cec926911bcc05477a5d5b0";

export default node;
