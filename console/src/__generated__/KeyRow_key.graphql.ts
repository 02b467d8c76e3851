/**
 * @generated SignedSource<<1c57d64efe4ddee0354c3aa905c70b39>>
 * @lightSyntaxTransform
 */

/* tslint:disable */
/* eslint-disable */
// @ts-nocheck

import { ReaderFragment } from 'relay-runtime';
export type ApiKeyRole = "admin" | "agent" | "readonly";
import { FragmentRefs } from "relay-runtime";
export type KeyRow_key$data = {
  readonly agentIds: ReadonlyArray<string>;
  readonly createdAt: string;
  readonly id: string;
  readonly lastUsedAt: string | null | undefined;
  readonly name: string;
  readonly revokedAt: string | null | undefined;
  readonly role: ApiKeyRole;
  readonly " $fragmentType": "KeyRow_key";
};
export type KeyRow_key$key = {
  readonly " $data"?: KeyRow_key$data;
  readonly " $fragmentSpreads": FragmentRefs<"KeyRow_key">;
};

const node: ReaderFragment = {
  "argumentDefinitions": [],
  "kind": "Fragment",
  "metadata": null,
  "name": "KeyRow_key",
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
      "name": "role",
      "storageKey": null
    },
    {
      "alias": null,
      "args": null,
      "kind": "ScalarField",
      "name": "agentIds",
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
      "name": "lastUsedAt",
      "storageKey": null
    },
    {
      "alias": null,
      "args": null,
      "kind": "ScalarField",
      "name": "revokedAt",
      "storageKey": null
    }
  ],
  "type": "ApiKey",
  "abstractKey": null
};

(node as any).hash = "e06603c0f0ee1ef889b7170b408b7983";

export default node;
