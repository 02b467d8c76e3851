import{a as R,b as A,c as g}from"./chunk-73V6SR5P.js";import{b as d,d as G,f as S,i as h,j as K,l as w}from"./chunk-VRV7FXVT.js";var $=(function(){var n={alias:null,args:null,kind:"ScalarField",name:"id",storageKey:null},a={alias:null,args:null,kind:"ScalarField",name:"createdAt",storageKey:null},l=[{kind:"Literal",name:"first",value:20}];return{fragment:{argumentDefinitions:[],kind:"Fragment",metadata:null,name:"WebhooksPageQuery",selections:[{alias:null,args:null,concreteType:"Webhook",kind:"LinkedField",name:"webhooks",plural:!0,selections:[n,{args:null,kind:"FragmentSpread",name:"WebhookPanel_webhook"}],storageKey:null}],type:"Query",abstractKey:null},kind:"Request",operation:{argumentDefinitions:[],kind:"Operation",name:"WebhooksPageQuery",selections:[{alias:null,args:null,concreteType:"Webhook",kind:"LinkedField",name:"webhooks",plural:!0,selections:[n,{alias:null,args:null,kind:"ScalarField",name:"url",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"events",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"active",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"consecutiveFailures",storageKey:null},a,{alias:null,args:l,concreteType:"WebhookDeliveryConnection",kind:"LinkedField",name:"deliveries",plural:!1,selections:[{alias:null,args:null,concreteType:"WebhookDeliveryEdge",kind:"LinkedField",name:"edges",plural:!0,selections:[{alias:null,args:null,concreteType:"WebhookDelivery",kind:"LinkedField",name:"node",plural:!1,selections:[n,{alias:null,args:null,kind:"ScalarField",name:"eventId",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"eventType",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"attempt",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"success",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"statusCode",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"latencyMs",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"error",storageKey:null},a,{alias:null,args:null,kind:"ScalarField",name:"__typename",storageKey:null}],storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"cursor",storageKey:null}],storageKey:null},{alias:null,args:null,concreteType:"PageInfo",kind:"LinkedField",name:"pageInfo",plural:!1,selections:[{alias:null,args:null,kind:"ScalarField",name:"endCursor",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"hasNextPage",storageKey:null}],storageKey:null}],storageKey:"deliveries(first:20)"},{alias:null,args:l,filters:null,handle:"connection",key:"WebhookPanel_deliveries",kind:"LinkedHandle",name:"deliveries"}],storageKey:null}]},params:{cacheID:"2b25b6d33c7c7dcb86ddd24e8d30454a",id:null,metadata:{},name:"WebhooksPageQuery",operationKind:"query",text:`query WebhooksPageQuery {
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
`}}})();$.hash="536ca9ce071d42fbeb1889d67b64956b";var M=$;var j=d(S(),1);var T={argumentDefinitions:[],kind:"Fragment",metadata:null,name:"WebhookPanel_webhook",selections:[{alias:null,args:null,kind:"ScalarField",name:"id",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"url",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"events",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"active",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"consecutiveFailures",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"createdAt",storageKey:null},{args:null,kind:"FragmentSpread",name:"WebhookPanelAttempts_webhook"}],type:"Webhook",abstractKey:null};T.hash="b55ff5bb11b42277f05b47012871f39a";var I=T;var x=(function(){var n=[{defaultValue:null,kind:"LocalArgument",name:"id"}],a=[{alias:null,args:[{kind:"Variable",name:"id",variableName:"id"}],concreteType:"WebhookTestResult",kind:"LinkedField",name:"testWebhook",plural:!1,selections:[{alias:null,args:null,kind:"ScalarField",name:"statusCode",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"success",storageKey:null}],storageKey:null}];return{fragment:{argumentDefinitions:n,kind:"Fragment",metadata:null,name:"WebhookPanelTestMutation",selections:a,type:"Mutation",abstractKey:null},kind:"Request",operation:{argumentDefinitions:n,kind:"Operation",name:"WebhookPanelTestMutation",selections:a},params:{cacheID:"fd4720cadd1c8e005648f7c8a356df48",id:null,metadata:{},name:"WebhookPanelTestMutation",operationKind:"mutation",text:`mutation WebhookPanelTestMutation(
  $id: ID!
) {
  testWebhook(id: $id) {
    statusCode
    success
  }
}
`}}})();x.hash="c3c0c223203b92376e5512e73189a0d9";var C=x;var L=(function(){var n=[{defaultValue:null,kind:"LocalArgument",name:"id"}],a=[{alias:null,args:[{kind:"Variable",name:"id",variableName:"id"}],concreteType:"Webhook",kind:"LinkedField",name:"rotateWebhookSecret",plural:!1,selections:[{alias:null,args:null,kind:"ScalarField",name:"id",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"secret",storageKey:null}],storageKey:null}];return{fragment:{argumentDefinitions:n,kind:"Fragment",metadata:null,name:"WebhookPanelRotateMutation",selections:a,type:"Mutation",abstractKey:null},kind:"Request",operation:{argumentDefinitions:n,kind:"Operation",name:"WebhookPanelRotateMutation",selections:a},params:{cacheID:"3e7f989a47332b23f367f28200269452",id:null,metadata:{},name:"WebhookPanelRotateMutation",operationKind:"mutation",text:`mutation WebhookPanelRotateMutation(
  $id: ID!
) {
  rotateWebhookSecret(id: $id) {
    id
    secret
  }
}
`}}})();L.hash="02825c1c68e2f86e06c12c993e8cbfe9";var D=L;var N=(function(){var n={defaultValue:null,kind:"LocalArgument",name:"active"},a={defaultValue:null,kind:"LocalArgument",name:"id"},l=[{alias:null,args:[{kind:"Variable",name:"id",variableName:"id"},{fields:[{kind:"Variable",name:"active",variableName:"active"}],kind:"ObjectValue",name:"input"}],concreteType:"Webhook",kind:"LinkedField",name:"updateWebhook",plural:!1,selections:[{alias:null,args:null,kind:"ScalarField",name:"id",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"active",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"consecutiveFailures",storageKey:null}],storageKey:null}];return{fragment:{argumentDefinitions:[n,a],kind:"Fragment",metadata:null,name:"WebhookPanelActiveMutation",selections:l,type:"Mutation",abstractKey:null},kind:"Request",operation:{argumentDefinitions:[a,n],kind:"Operation",name:"WebhookPanelActiveMutation",selections:l},params:{cacheID:"4831691121ca4f8cb15e2e90a6fcb9c2",id:null,metadata:{},name:"WebhookPanelActiveMutation",operationKind:"mutation",text:`mutation WebhookPanelActiveMutation(
  $id: ID!
  $active: Boolean!
) {
  updateWebhook(id: $id, input: {active: $active}) {
    id
    active
    consecutiveFailures
  }
}
`}}})();N.hash="a46e2313ae22f8d0949207213557c4b7";var q=N;var Q=(function(){var n=[{defaultValue:null,kind:"LocalArgument",name:"after"},{defaultValue:20,kind:"LocalArgument",name:"first"},{defaultValue:null,kind:"LocalArgument",name:"id"}],a=[{kind:"Variable",name:"id",variableName:"id"}],l=[{kind:"Variable",name:"after",variableName:"after"},{kind:"Variable",name:"first",variableName:"first"}],s={alias:null,args:null,kind:"ScalarField",name:"__typename",storageKey:null},r={alias:null,args:null,kind:"ScalarField",name:"id",storageKey:null};return{fragment:{argumentDefinitions:n,kind:"Fragment",metadata:null,name:"WebhookPanelAttemptsRefetchQuery",selections:[{alias:null,args:a,concreteType:null,kind:"LinkedField",name:"node",plural:!1,selections:[{args:l,kind:"FragmentSpread",name:"WebhookPanelAttempts_webhook"}],storageKey:null}],type:"Query",abstractKey:null},kind:"Request",operation:{argumentDefinitions:n,kind:"Operation",name:"WebhookPanelAttemptsRefetchQuery",selections:[{alias:null,args:a,concreteType:null,kind:"LinkedField",name:"node",plural:!1,selections:[s,r,{kind:"InlineFragment",selections:[{alias:null,args:l,concreteType:"WebhookDeliveryConnection",kind:"LinkedField",name:"deliveries",plural:!1,selections:[{alias:null,args:null,concreteType:"WebhookDeliveryEdge",kind:"LinkedField",name:"edges",plural:!0,selections:[{alias:null,args:null,concreteType:"WebhookDelivery",kind:"LinkedField",name:"node",plural:!1,selections:[r,{alias:null,args:null,kind:"ScalarField",name:"eventId",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"eventType",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"attempt",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"success",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"statusCode",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"latencyMs",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"error",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"createdAt",storageKey:null},s],storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"cursor",storageKey:null}],storageKey:null},{alias:null,args:null,concreteType:"PageInfo",kind:"LinkedField",name:"pageInfo",plural:!1,selections:[{alias:null,args:null,kind:"ScalarField",name:"endCursor",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"hasNextPage",storageKey:null}],storageKey:null}],storageKey:null},{alias:null,args:l,filters:null,handle:"connection",key:"WebhookPanel_deliveries",kind:"LinkedHandle",name:"deliveries"}],type:"Webhook",abstractKey:null}],storageKey:null}]},params:{cacheID:"e55cf1ad65d57a792981bbaa5901af22",id:null,metadata:{},name:"WebhookPanelAttemptsRefetchQuery",operationKind:"query",text:`query WebhookPanelAttemptsRefetchQuery(
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
`}}})();Q.hash="0bd075e806279d42522fa1dfa7da9300";var V=Q;var E=(function(){var n=["deliveries"],a={alias:null,args:null,kind:"ScalarField",name:"id",storageKey:null};return{argumentDefinitions:[{defaultValue:null,kind:"LocalArgument",name:"after"},{defaultValue:20,kind:"LocalArgument",name:"first"}],kind:"Fragment",metadata:{connection:[{count:"first",cursor:"after",direction:"forward",path:n}],refetch:{connection:{forward:{count:"first",cursor:"after"},backward:null,path:n},fragmentPathInResult:["node"],operation:V,identifierInfo:{identifierField:"id",identifierQueryVariableName:"id"}}},name:"WebhookPanelAttempts_webhook",selections:[a,{alias:"deliveries",args:null,concreteType:"WebhookDeliveryConnection",kind:"LinkedField",name:"__WebhookPanel_deliveries_connection",plural:!1,selections:[{alias:null,args:null,concreteType:"WebhookDeliveryEdge",kind:"LinkedField",name:"edges",plural:!0,selections:[{alias:null,args:null,concreteType:"WebhookDelivery",kind:"LinkedField",name:"node",plural:!1,selections:[a,{alias:null,args:null,kind:"ScalarField",name:"eventId",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"eventType",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"attempt",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"success",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"statusCode",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"latencyMs",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"error",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"createdAt",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"__typename",storageKey:null}],storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"cursor",storageKey:null}],storageKey:null},{alias:null,args:null,concreteType:"PageInfo",kind:"LinkedField",name:"pageInfo",plural:!1,selections:[{alias:null,args:null,kind:"ScalarField",name:"endCursor",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"hasNextPage",storageKey:null}],storageKey:null}],storageKey:null}],type:"Webhook",abstractKey:null}})();E.hash="0bd075e806279d42522fa1dfa7da9300";var O=E;var H=(function(){var n={defaultValue:null,kind:"LocalArgument",name:"eventId"},a={defaultValue:null,kind:"LocalArgument",name:"webhookId"},l=[{alias:null,args:[{kind:"Variable",name:"eventId",variableName:"eventId"},{kind:"Variable",name:"webhookId",variableName:"webhookId"}],kind:"ScalarField",name:"redeliverEvent",storageKey:null}];return{fragment:{argumentDefinitions:[n,a],kind:"Fragment",metadata:null,name:"WebhookPanelRedeliverMutation",selections:l,type:"Mutation",abstractKey:null},kind:"Request",operation:{argumentDefinitions:[a,n],kind:"Operation",name:"WebhookPanelRedeliverMutation",selections:l},params:{cacheID:"cf03d82a9a23760c4b59e9c089f7c502",id:null,metadata:{},name:"WebhookPanelRedeliverMutation",operationKind:"mutation",text:`mutation WebhookPanelRedeliverMutation(
  $webhookId: ID!
  $eventId: ID!
) {
  redeliverEvent(webhookId: $webhookId, eventId: $eventId)
}
`}}})();H.hash="a7d8e91c7d445fdef9220768c890dd5f";var B=H;var i=d(G(),1),f=d(S(),1);var e=d(h(),1);function z({webhook:n}){let a=(0,f.useFragment)(I,n),l=R(),[s,r]=(0,i.useState)(null),[u,c]=(0,i.useState)(null),[m,k]=(0,i.useState)(null),[p,v]=g(C),[W]=g(D),[P,F]=g(q),y=async t=>{r(null);try{await t()}catch(_){r(_)}},b=`wh-${a.id}`;return(0,e.jsxs)("section",{className:"panel","aria-labelledby":b,children:[(0,e.jsx)("h2",{id:b,children:(0,e.jsx)("code",{children:a.url})}),(0,e.jsxs)("dl",{className:"facts",children:[(0,e.jsx)("dt",{children:"Id"}),(0,e.jsx)("dd",{children:(0,e.jsx)("code",{children:a.id})}),(0,e.jsx)("dt",{children:"State"}),(0,e.jsxs)("dd",{children:[(0,e.jsx)("span",{className:`badge ${a.active?"ok":"fail"}`,children:a.active?"enabled":"disabled"}),a.consecutiveFailures>0&&` · ${a.consecutiveFailures} consecutive failures`]}),(0,e.jsx)("dt",{children:"Events"}),(0,e.jsx)("dd",{children:a.events.join(", ")}),(0,e.jsx)("dt",{children:"Created"}),(0,e.jsx)("dd",{children:w(a.createdAt)})]}),l.admin&&(0,e.jsxs)("div",{className:"actions",children:[(0,e.jsx)("button",{type:"button",disabled:v,onClick:()=>y(async()=>c((await p({id:a.id})).testWebhook)),children:"Send test"}),(0,e.jsx)(A,{label:"Rotate secret",title:"Rotate this endpoint's signing secret?",onConfirm:async()=>{let t=await W({id:a.id});k(t.rotateWebhookSecret.secret??null)},children:(0,e.jsx)("p",{children:"For 24 hours deliveries carry signatures under both the new and the old secret."})}),(0,e.jsx)("button",{type:"button",disabled:F,onClick:()=>y(()=>P({id:a.id,active:!a.active})),children:a.active?"Disable":"Enable"})]}),(0,e.jsx)("div",{role:"status","aria-live":"polite",children:u&&(0,e.jsxs)("p",{className:u.success?"help":"notice",children:["Test delivery: ",u.success?"succeeded":"failed",", HTTP ",u.statusCode,"."]})}),m&&(0,e.jsxs)("div",{className:"secret",children:[(0,e.jsxs)("p",{children:["New secret (shown once; copy it now): ",(0,e.jsx)("code",{"data-testid":"webhook-secret",children:m})]}),(0,e.jsx)("button",{type:"button",onClick:()=>k(null),children:"I have copied it"})]}),s!=null&&(0,e.jsx)(K,{error:s}),(0,e.jsx)(J,{webhook:a})]})}function J({webhook:n}){let{data:a,loadNext:l,hasNext:s,isLoadingNext:r,refetch:u}=(0,f.usePaginationFragment)(O,n),c=R(),[m,k]=(0,i.useState)(null),[p,v]=(0,i.useState)(null),[W]=g(B),P=async t=>{k(null);try{await t()}catch(_){k(_)}},[F,y]=(0,i.useTransition)(),b=()=>y(()=>void u({},{fetchPolicy:"network-only"}));return(0,e.jsxs)(e.Fragment,{children:[c.admin&&(0,e.jsx)("div",{className:"actions",children:(0,e.jsx)("button",{type:"button",onClick:b,disabled:F,children:"Refresh attempts"})}),(0,e.jsx)("div",{role:"status","aria-live":"polite",children:p&&(0,e.jsx)("p",{className:"help",children:p})}),m!=null&&(0,e.jsx)(K,{error:m}),(0,e.jsx)("div",{className:"scroll",children:(0,e.jsxs)("table",{children:[(0,e.jsx)("caption",{children:"Delivery attempts, newest first"}),(0,e.jsx)("thead",{children:(0,e.jsxs)("tr",{children:[(0,e.jsx)("th",{scope:"col",children:"Event"}),(0,e.jsx)("th",{scope:"col",children:"Type"}),(0,e.jsx)("th",{scope:"col",className:"num",children:"Attempt"}),(0,e.jsx)("th",{scope:"col",children:"Status"}),(0,e.jsx)("th",{scope:"col",className:"num",children:"Latency"}),(0,e.jsx)("th",{scope:"col",children:"At"}),c.admin&&(0,e.jsx)("th",{scope:"col",children:"Redeliver"})]})}),(0,e.jsxs)("tbody",{children:[a.deliveries.edges.map(({node:t})=>(0,e.jsxs)("tr",{children:[(0,e.jsx)("th",{scope:"row",children:(0,e.jsx)("code",{children:t.eventId})}),(0,e.jsx)("td",{children:t.eventType}),(0,e.jsx)("td",{className:"num",children:t.attempt}),(0,e.jsxs)("td",{children:[(0,e.jsx)("span",{className:`badge ${t.success?"ok":"fail"}`,children:t.success?"ok":"failed"})," ",t.statusCode??"",t.error&&(0,e.jsx)("div",{className:"muted",children:t.error})]}),(0,e.jsxs)("td",{className:"num",children:[t.latencyMs," ms"]}),(0,e.jsx)("td",{children:w(t.createdAt)}),c.admin&&(0,e.jsx)("td",{children:(0,e.jsx)("button",{type:"button","aria-label":`Redeliver ${t.eventId}`,onClick:()=>P(async()=>{await W({webhookId:a.id,eventId:t.eventId}),v(`Redelivery of ${t.eventId} queued; the new attempt appears below.`),window.setTimeout(b,1e3)}),children:"Redeliver"})})]},t.id)),a.deliveries.edges.length===0&&(0,e.jsx)("tr",{children:(0,e.jsx)("td",{colSpan:c.admin?7:6,children:"No attempts yet."})})]})]})}),s&&(0,e.jsx)("button",{type:"button",onClick:()=>l(20),disabled:r,children:r?"Loading…":"Older attempts"})]})}var o=d(h(),1);function We(){let n=(0,j.useLazyLoadQuery)(M,{},{fetchPolicy:"store-and-network"});return(0,o.jsxs)(o.Fragment,{children:[(0,o.jsx)("h1",{children:"Webhooks"}),n.webhooks.length===0&&(0,o.jsxs)("p",{children:["No endpoints. Register one with ",(0,o.jsx)("code",{children:"registerWebhook"})," or ",(0,o.jsx)("code",{children:"POST /webhooks"})," (docs/webhooks.md)."]}),n.webhooks.map(a=>(0,o.jsx)(z,{webhook:a},a.id))]})}export{We as WebhooksPage};
