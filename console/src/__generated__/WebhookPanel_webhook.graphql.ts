/**
 * @generated SignedSource<<2ac15c47fcf69e1abfca4fb3e7ba9013>>
 * @lightSyntaxTransform
 */

/* tslint:disable */
/* eslint-disable */
// @ts-nocheck

import { ReaderFragment } from 'relay-runtime';
import { FragmentRefs } from "relay-runtime";
export type WebhookPanel_webhook$data = {
  readonly active: boolean;
  readonly consecutiveFailures: number;
  readonly createdAt: string;
  readonly events: ReadonlyArray<string>;
  readonly id: string;
  readonly url: string;
  readonly " $fragmentSpreads": FragmentRefs<"WebhookPanelAttempts_webhook">;
  readonly " $fragmentType": "WebhookPanel_webhook";
};
export type WebhookPanel_webhook$key = {
  readonly " $data"?: WebhookPanel_webhook$data;
  readonly " $fragmentSpreads": FragmentRefs<"WebhookPanel_webhook">;
};

const node: ReaderFragment = {
  "argumentDefinitions": [],
  "kind": "Fragment",
  "metadata": null,
  "name": "WebhookPanel_webhook",
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
      "name": "url",
      "storageKey": null
    },
    {
      "alias": null,
      "args": null,
      "kind": "ScalarField",
      "name": "events",
      "storageKey": null
    },
    {
      "alias": null,
      "args": null,
      "kind": "ScalarField",
      "name": "active",
      "storageKey": null
    },
    {
      "alias": null,
      "args": null,
      "kind": "ScalarField",
      "name": "consecutiveFailures",
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
      "args": null,
      "kind": "FragmentSpread",
      "name": "WebhookPanelAttempts_webhook"
    }
  ],
  "type": "Webhook",
  "abstractKey": null
};

(node as any).hash = "b55ff5bb11b42277f05b47012871f39a";

export default node;
