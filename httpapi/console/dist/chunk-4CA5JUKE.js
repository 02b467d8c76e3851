import{a as F,b as S,c as k}from"./chunk-73V6SR5P.js";import{b as u,d as G,f as R,i as g,j as w,l as _}from"./chunk-VRV7FXVT.js";var A=(function(){var n={alias:null,args:null,kind:"ScalarField",name:"id",storageKey:null},a={alias:null,args:null,kind:"ScalarField",name:"createdAt",storageKey:null},t=[{kind:"Literal",name:"first",value:20}];return{fragment:{argumentDefinitions:[],kind:"Fragment",metadata:null,name:"WebhooksPageQuery",selections:[{alias:null,args:null,concreteType:"Webhook",kind:"LinkedField",name:"webhooks",plural:!0,selections:[n,{args:null,kind:"FragmentSpread",name:"WebhookPanel_webhook"}],storageKey:null}],type:"Query",abstractKey:null},kind:"Request",operation:{argumentDefinitions:[],kind:"Operation",name:"WebhooksPageQuery",selections:[{alias:null,args:null,concreteType:"Webhook",kind:"LinkedField",name:"webhooks",plural:!0,selections:[n,{alias:null,args:null,kind:"ScalarField",name:"url",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"events",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"active",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"consecutiveFailures",storageKey:null},a,{alias:null,args:t,concreteType:"WebhookDeliveryConnection",kind:"LinkedField",name:"deliveries",plural:!1,selections:[{alias:null,args:null,concreteType:"WebhookDeliveryEdge",kind:"LinkedField",name:"edges",plural:!0,selections:[{alias:null,args:null,concreteType:"WebhookDelivery",kind:"LinkedField",name:"node",plural:!1,selections:[n,{alias:null,args:null,kind:"ScalarField",name:"eventId",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"eventType",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"attempt",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"success",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"statusCode",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"latencyMs",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"error",storageKey:null},a,{alias:null,args:null,kind:"ScalarField",name:"__typename",storageKey:null}],storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"cursor",storageKey:null}],storageKey:null},{alias:null,args:null,concreteType:"PageInfo",kind:"LinkedField",name:"pageInfo",plural:!1,selections:[{alias:null,args:null,kind:"ScalarField",name:"endCursor",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"hasNextPage",storageKey:null}],storageKey:null}],storageKey:"deliveries(first:20)"},{alias:null,args:t,filters:null,handle:"connection",key:"WebhookPanel_deliveries",kind:"LinkedHandle",name:"deliveries"}],storageKey:null}]},params:{cacheID:"2b25b6d33c7c7dcb86ddd24e8d30454a",id:null,metadata:{},name:"WebhooksPageQuery",operationKind:"query",text:`query WebhooksPageQuery {
  webhooks {
    id
    ...WebhookPanel_webhook
  }
}

fragment WebhookPanelAttempts_webhook on Webhook {
  id
  deliveries(first: 20) {
    edges {
      node {
        id
        eventId
        eventType
        attempt
        success
        statusCode
        latencyMs
        error
        createdAt
        __typename
      }
      cursor
    }
    pageInfo {
      endCursor
      hasNextPage
    }
  }
}

fragment WebhookPanel_webhook on Webhook {
  id
  url
  events
  active
  consecutiveFailures
  createdAt
  ...WebhookPanelAttempts_webhook
}
`}}})();A.hash="536ca9ce071d42fbeb1889d67b64956b";var $=A;var z=u(R(),1);var M={argumentDefinitions:[],kind:"Fragment",metadata:null,name:"WebhookPanel_webhook",selections:[{alias:null,args:null,kind:"ScalarField",name:"id",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"url",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"events",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"active",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"consecutiveFailures",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"createdAt",storageKey:null},{args:null,kind:"FragmentSpread",name:"WebhookPanelAttempts_webhook"}],type:"Webhook",abstractKey:null};M.hash="b55ff5bb11b42277f05b47012871f39a";var T=M;var I=(function(){var n=[{defaultValue:null,kind:"LocalArgument",name:"id"}],a=[{alias:null,args:[{kind:"Variable",name:"id",variableName:"id"}],concreteType:"WebhookTestResult",kind:"LinkedField",name:"testWebhook",plural:!1,selections:[{alias:null,args:null,kind:"ScalarField",name:"statusCode",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"success",storageKey:null}],storageKey:null}];return{fragment:{argumentDefinitions:n,kind:"Fragment",metadata:null,name:"WebhookPanelTestMutation",selections:a,type:"Mutation",abstractKey:null},kind:"Request",operation:{argumentDefinitions:n,kind:"Operation",name:"WebhookPanelTestMutation",selections:a},params:{cacheID:"fd4720cadd1c8e005648f7c8a356df48",id:null,metadata:{},name:"WebhookPanelTestMutation",operationKind:"mutation",text:`mutation WebhookPanelTestMutation(
  $id: ID!
) {
  testWebhook(id: $id) {
    statusCode
    success
  }
}
`}}})();I.hash="c3c0c223203b92376e5512e73189a0d9";var x=I;var C=(function(){var n=[{defaultValue:null,kind:"LocalArgument",name:"id"}],a=[{alias:null,args:[{kind:"Variable",name:"id",variableName:"id"}],concreteType:"Webhook",kind:"LinkedField",name:"rotateWebhookSecret",plural:!1,selections:[{alias:null,args:null,kind:"ScalarField",name:"id",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"secret",storageKey:null}],storageKey:null}];return{fragment:{argumentDefinitions:n,kind:"Fragment",metadata:null,name:"WebhookPanelRotateMutation",selections:a,type:"Mutation",abstractKey:null},kind:"Request",operation:{argumentDefinitions:n,kind:"Operation",name:"WebhookPanelRotateMutation",selections:a},params:{cacheID:"3e7f989a47332b23f367f28200269452",id:null,metadata:{},name:"WebhookPanelRotateMutation",operationKind:"mutation",text:`mutation WebhookPanelRotateMutation(
  $id: ID!
) {
  rotateWebhookSecret(id: $id) {
    id
    secret
  }
}
`}}})();C.hash="02825c1c68e2f86e06c12c993e8cbfe9";var L=C;var D=(function(){var n={defaultValue:null,kind:"LocalArgument",name:"active"},a={defaultValue:null,kind:"LocalArgument",name:"id"},t=[{alias:null,args:[{kind:"Variable",name:"id",variableName:"id"},{fields:[{kind:"Variable",name:"active",variableName:"active"}],kind:"ObjectValue",name:"input"}],concreteType:"Webhook",kind:"LinkedField",name:"updateWebhook",plural:!1,selections:[{alias:null,args:null,kind:"ScalarField",name:"id",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"active",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"consecutiveFailures",storageKey:null}],storageKey:null}];return{fragment:{argumentDefinitions:[n,a],kind:"Fragment",metadata:null,name:"WebhookPanelActiveMutation",selections:t,type:"Mutation",abstractKey:null},kind:"Request",operation:{argumentDefinitions:[a,n],kind:"Operation",name:"WebhookPanelActiveMutation",selections:t},params:{cacheID:"4831691121ca4f8cb15e2e90a6fcb9c2",id:null,metadata:{},name:"WebhookPanelActiveMutation",operationKind:"mutation",text:`mutation WebhookPanelActiveMutation(
  $id: ID!
  $active: Boolean!
) {
  updateWebhook(id: $id, input: {active: $active}) {
    id
    active
    consecutiveFailures
  }
}
`}}})();D.hash="a46e2313ae22f8d0949207213557c4b7";var N=D;var q=(function(){var n=[{defaultValue:null,kind:"LocalArgument",name:"after"},{defaultValue:20,kind:"LocalArgument",name:"first"},{defaultValue:null,kind:"LocalArgument",name:"id"}],a=[{kind:"Variable",name:"id",variableName:"id"}],t=[{kind:"Variable",name:"after",variableName:"after"},{kind:"Variable",name:"first",variableName:"first"}],r={alias:null,args:null,kind:"ScalarField",name:"__typename",storageKey:null},i={alias:null,args:null,kind:"ScalarField",name:"id",storageKey:null};return{fragment:{argumentDefinitions:n,kind:"Fragment",metadata:null,name:"WebhookPanelAttemptsRefetchQuery",selections:[{alias:null,args:a,concreteType:null,kind:"LinkedField",name:"node",plural:!1,selections:[{args:t,kind:"FragmentSpread",name:"WebhookPanelAttempts_webhook"}],storageKey:null}],type:"Query",abstractKey:null},kind:"Request",operation:{argumentDefinitions:n,kind:"Operation",name:"WebhookPanelAttemptsRefetchQuery",selections:[{alias:null,args:a,concreteType:null,kind:"LinkedField",name:"node",plural:!1,selections:[r,i,{kind:"InlineFragment",selections:[{alias:null,args:t,concreteType:"WebhookDeliveryConnection",kind:"LinkedField",name:"deliveries",plural:!1,selections:[{alias:null,args:null,concreteType:"WebhookDeliveryEdge",kind:"LinkedField",name:"edges",plural:!0,selections:[{alias:null,args:null,concreteType:"WebhookDelivery",kind:"LinkedField",name:"node",plural:!1,selections:[i,{alias:null,args:null,kind:"ScalarField",name:"eventId",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"eventType",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"attempt",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"success",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"statusCode",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"latencyMs",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"error",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"createdAt",storageKey:null},r],storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"cursor",storageKey:null}],storageKey:null},{alias:null,args:null,concreteType:"PageInfo",kind:"LinkedField",name:"pageInfo",plural:!1,selections:[{alias:null,args:null,kind:"ScalarField",name:"endCursor",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"hasNextPage",storageKey:null}],storageKey:null}],storageKey:null},{alias:null,args:t,filters:null,handle:"connection",key:"WebhookPanel_deliveries",kind:"LinkedHandle",name:"deliveries"}],type:"Webhook",abstractKey:null}],storageKey:null}]},params:{cacheID:"e55cf1ad65d57a792981bbaa5901af22",id:null,metadata:{},name:"WebhookPanelAttemptsRefetchQuery",operationKind:"query",text:`query WebhookPanelAttemptsRefetchQuery(
  $after: String
  $first: Int = 20
  $id: ID!
) {
  node(id: $id) {
    __typename
    ...WebhookPanelAttempts_webhook_2HEEH6
    id
  }
}

fragment WebhookPanelAttempts_webhook_2HEEH6 on Webhook {
  id
  deliveries(first: $first, after: $after) {
    edges {
      node {
        id
        eventId
        eventType
        attempt
        success
        statusCode
        latencyMs
        error
        createdAt
        __typename
      }
      cursor
    }
    pageInfo {
      endCursor
      hasNextPage
    }
  }
}
`}}})();q.hash="0bd075e806279d42522fa1dfa7da9300";var Q=q;var V=(function(){var n=["deliveries"],a={alias:null,args:null,kind:"ScalarField",name:"id",storageKey:null};return{argumentDefinitions:[{defaultValue:null,kind:"LocalArgument",name:"after"},{defaultValue:20,kind:"LocalArgument",name:"first"}],kind:"Fragment",metadata:{connection:[{count:"first",cursor:"after",direction:"forward",path:n}],refetch:{connection:{forward:{count:"first",cursor:"after"},backward:null,path:n},fragmentPathInResult:["node"],operation:Q,identifierInfo:{identifierField:"id",identifierQueryVariableName:"id"}}},name:"WebhookPanelAttempts_webhook",selections:[a,{alias:"deliveries",args:null,concreteType:"WebhookDeliveryConnection",kind:"LinkedField",name:"__WebhookPanel_deliveries_connection",plural:!1,selections:[{alias:null,args:null,concreteType:"WebhookDeliveryEdge",kind:"LinkedField",name:"edges",plural:!0,selections:[{alias:null,args:null,concreteType:"WebhookDelivery",kind:"LinkedField",name:"node",plural:!1,selections:[a,{alias:null,args:null,kind:"ScalarField",name:"eventId",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"eventType",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"attempt",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"success",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"statusCode",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"latencyMs",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"error",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"createdAt",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"__typename",storageKey:null}],storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"cursor",storageKey:null}],storageKey:null},{alias:null,args:null,concreteType:"PageInfo",kind:"LinkedField",name:"pageInfo",plural:!1,selections:[{alias:null,args:null,kind:"ScalarField",name:"endCursor",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"hasNextPage",storageKey:null}],storageKey:null}],storageKey:null}],type:"Webhook",abstractKey:null}})();V.hash="0bd075e806279d42522fa1dfa7da9300";var E=V;var O=(function(){var n={defaultValue:null,kind:"LocalArgument",name:"eventId"},a={defaultValue:null,kind:"LocalArgument",name:"webhookId"},t=[{alias:null,args:[{kind:"Variable",name:"eventId",variableName:"eventId"},{kind:"Variable",name:"webhookId",variableName:"webhookId"}],kind:"ScalarField",name:"redeliverEvent",storageKey:null}];return{fragment:{argumentDefinitions:[n,a],kind:"Fragment",metadata:null,name:"WebhookPanelRedeliverMutation",selections:t,type:"Mutation",abstractKey:null},kind:"Request",operation:{argumentDefinitions:[a,n],kind:"Operation",name:"WebhookPanelRedeliverMutation",selections:t},params:{cacheID:"cf03d82a9a23760c4b59e9c089f7c502",id:null,metadata:{},name:"WebhookPanelRedeliverMutation",operationKind:"mutation",text:`mutation WebhookPanelRedeliverMutation(
  $webhookId: ID!
  $eventId: ID!
) {
  redeliverEvent(webhookId: $webhookId, eventId: $eventId)
}
`}}})();O.hash="a7d8e91c7d445fdef9220768c890dd5f";var H=O;var c=u(G(),1),p=u(R(),1);var e=u(g(),1);function B({webhook:n}){let a=(0,p.useFragment)(T,n),t=F(),[r,i]=(0,c.useState)(null),[s,y]=(0,c.useState)(null),[d,m]=(0,c.useState)(null),[h,f]=k(x),[v]=k(L),[W,b]=k(N),l=async P=>{i(null);try{await P()}catch(j){i(j)}},K=`wh-${a.id}`;return(0,e.jsxs)("section",{className:"panel","aria-labelledby":K,children:[(0,e.jsx)("h2",{id:K,children:(0,e.jsx)("code",{children:a.url})}),(0,e.jsxs)("dl",{className:"facts",children:[(0,e.jsx)("dt",{children:"Id"}),(0,e.jsx)("dd",{children:(0,e.jsx)("code",{children:a.id})}),(0,e.jsx)("dt",{children:"State"}),(0,e.jsxs)("dd",{children:[(0,e.jsx)("span",{className:`badge ${a.active?"ok":"fail"}`,children:a.active?"enabled":"disabled"}),a.consecutiveFailures>0&&` · ${a.consecutiveFailures} consecutive failures`]}),(0,e.jsx)("dt",{children:"Events"}),(0,e.jsx)("dd",{children:a.events.join(", ")}),(0,e.jsx)("dt",{children:"Created"}),(0,e.jsx)("dd",{children:_(a.createdAt)})]}),t.admin&&(0,e.jsxs)("div",{className:"actions",children:[(0,e.jsx)("button",{type:"button",disabled:f,onClick:()=>l(async()=>y((await h({id:a.id})).testWebhook)),children:"Send test"}),(0,e.jsx)(S,{label:"Rotate secret",title:"Rotate this endpoint's signing secret?",onConfirm:async()=>{let P=await v({id:a.id});m(P.rotateWebhookSecret.secret??null)},children:(0,e.jsx)("p",{children:"For 24 hours deliveries carry signatures under both the new and the old secret."})}),(0,e.jsx)("button",{type:"button",disabled:b,onClick:()=>l(()=>W({id:a.id,active:!a.active})),children:a.active?"Disable":"Enable"})]}),(0,e.jsx)("div",{role:"status","aria-live":"polite",children:s&&(0,e.jsxs)("p",{className:s.success?"help":"notice",children:["Test delivery: ",s.success?"succeeded":"failed",", HTTP ",s.statusCode,"."]})}),d&&(0,e.jsxs)("div",{className:"secret",children:[(0,e.jsxs)("p",{children:["New secret (shown once; copy it now): ",(0,e.jsx)("code",{"data-testid":"webhook-secret",children:d})]}),(0,e.jsx)("button",{type:"button",onClick:()=>m(null),children:"I have copied it"})]}),r!=null&&(0,e.jsx)(w,{error:r}),(0,e.jsx)(J,{webhook:a,act:l})]})}function J({webhook:n,act:a}){let{data:t,loadNext:r,hasNext:i,isLoadingNext:s,refetch:y}=(0,p.usePaginationFragment)(E,n),d=F(),[m,h]=(0,c.useState)(null),[f]=k(H),[v,W]=(0,c.useTransition)(),b=()=>W(()=>void y({},{fetchPolicy:"network-only"}));return(0,e.jsxs)(e.Fragment,{children:[d.admin&&(0,e.jsx)("div",{className:"actions",children:(0,e.jsx)("button",{type:"button",onClick:b,disabled:v,children:"Refresh attempts"})}),(0,e.jsx)("div",{role:"status","aria-live":"polite",children:m&&(0,e.jsx)("p",{className:"help",children:m})}),(0,e.jsx)("div",{className:"scroll",children:(0,e.jsxs)("table",{children:[(0,e.jsx)("caption",{children:"Delivery attempts, newest first"}),(0,e.jsx)("thead",{children:(0,e.jsxs)("tr",{children:[(0,e.jsx)("th",{scope:"col",children:"Event"}),(0,e.jsx)("th",{scope:"col",children:"Type"}),(0,e.jsx)("th",{scope:"col",className:"num",children:"Attempt"}),(0,e.jsx)("th",{scope:"col",children:"Status"}),(0,e.jsx)("th",{scope:"col",className:"num",children:"Latency"}),(0,e.jsx)("th",{scope:"col",children:"At"}),d.admin&&(0,e.jsx)("th",{scope:"col",children:"Redeliver"})]})}),(0,e.jsxs)("tbody",{children:[t.deliveries.edges.map(({node:l})=>(0,e.jsxs)("tr",{children:[(0,e.jsx)("th",{scope:"row",children:(0,e.jsx)("code",{children:l.eventId})}),(0,e.jsx)("td",{children:l.eventType}),(0,e.jsx)("td",{className:"num",children:l.attempt}),(0,e.jsxs)("td",{children:[(0,e.jsx)("span",{className:`badge ${l.success?"ok":"fail"}`,children:l.success?"ok":"failed"})," ",l.statusCode??"",l.error&&(0,e.jsx)("div",{className:"muted",children:l.error})]}),(0,e.jsxs)("td",{className:"num",children:[l.latencyMs," ms"]}),(0,e.jsx)("td",{children:_(l.createdAt)}),d.admin&&(0,e.jsx)("td",{children:(0,e.jsx)("button",{type:"button","aria-label":`Redeliver ${l.eventId}`,onClick:()=>a(async()=>{await f({webhookId:t.id,eventId:l.eventId}),h(`Redelivery of ${l.eventId} queued; the new attempt appears below.`),window.setTimeout(b,1e3)}),children:"Redeliver"})})]},l.id)),t.deliveries.edges.length===0&&(0,e.jsx)("tr",{children:(0,e.jsx)("td",{colSpan:d.admin?7:6,children:"No attempts yet."})})]})]})}),i&&(0,e.jsx)("button",{type:"button",onClick:()=>r(20),disabled:s,children:s?"Loading…":"Older attempts"})]})}var o=u(g(),1);function We(){let n=(0,z.useLazyLoadQuery)($,{},{fetchPolicy:"store-and-network"});return(0,o.jsxs)(o.Fragment,{children:[(0,o.jsx)("h1",{children:"Webhooks"}),n.webhooks.length===0&&(0,o.jsxs)("p",{children:["No endpoints. Register one with ",(0,o.jsx)("code",{children:"registerWebhook"})," or ",(0,o.jsx)("code",{children:"POST /webhooks"})," (docs/webhooks.md)."]}),n.webhooks.map(a=>(0,o.jsx)(B,{webhook:a},a.id))]})}export{We as WebhooksPage};
