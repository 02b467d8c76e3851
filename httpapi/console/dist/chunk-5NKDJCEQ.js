import{a as R,b as S,c as d}from"./chunk-73V6SR5P.js";import{b as r,d as ne,f as K,i as g,j as _,l as y}from"./chunk-VRV7FXVT.js";var M=(function(){var n={alias:null,args:null,kind:"ScalarField",name:"id",storageKey:null},a={alias:null,args:null,kind:"ScalarField",name:"createdAt",storageKey:null},t=[{kind:"Literal",name:"first",value:20}];return{fragment:{argumentDefinitions:[],kind:"Fragment",metadata:null,name:"WebhooksPageQuery",selections:[{alias:null,args:null,concreteType:"Webhook",kind:"LinkedField",name:"webhooks",plural:!0,selections:[n,{args:null,kind:"FragmentSpread",name:"WebhookPanel_webhook"}],storageKey:null}],type:"Query",abstractKey:null},kind:"Request",operation:{argumentDefinitions:[],kind:"Operation",name:"WebhooksPageQuery",selections:[{alias:null,args:null,concreteType:"Webhook",kind:"LinkedField",name:"webhooks",plural:!0,selections:[n,{alias:null,args:null,kind:"ScalarField",name:"url",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"events",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"active",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"consecutiveFailures",storageKey:null},a,{alias:null,args:t,concreteType:"WebhookDeliveryConnection",kind:"LinkedField",name:"deliveries",plural:!1,selections:[{alias:null,args:null,concreteType:"WebhookDeliveryEdge",kind:"LinkedField",name:"edges",plural:!0,selections:[{alias:null,args:null,concreteType:"WebhookDelivery",kind:"LinkedField",name:"node",plural:!1,selections:[n,{alias:null,args:null,kind:"ScalarField",name:"eventId",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"eventType",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"attempt",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"success",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"statusCode",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"latencyMs",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"error",storageKey:null},a,{alias:null,args:null,kind:"ScalarField",name:"__typename",storageKey:null}],storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"cursor",storageKey:null}],storageKey:null},{alias:null,args:null,concreteType:"PageInfo",kind:"LinkedField",name:"pageInfo",plural:!1,selections:[{alias:null,args:null,kind:"ScalarField",name:"endCursor",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"hasNextPage",storageKey:null}],storageKey:null}],storageKey:"deliveries(first:20)"},{alias:null,args:t,filters:null,handle:"connection",key:"WebhookPanel_deliveries",kind:"LinkedHandle",name:"deliveries"}],storageKey:null}]},params:{cacheID:"48d499039a5d6fa8287005242467c6ae",id:null,metadata:{},name:"WebhooksPageQuery",operationKind:"query",text:`query WebhooksPageQuery {
  webhooks {
    id
    ...WebhookPanel_webhook
  }
}

fragment WebhookPanel_webhook on Webhook {
  id
  url
  events
  active
  consecutiveFailures
  createdAt
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
`}}})();M.hash="536ca9ce071d42fbeb1889d67b64956b";var w=M;var H=r(K(),1);var $=(function(){var n=[{defaultValue:null,kind:"LocalArgument",name:"after"},{defaultValue:20,kind:"LocalArgument",name:"first"},{defaultValue:null,kind:"LocalArgument",name:"id"}],a=[{kind:"Variable",name:"id",variableName:"id"}],t=[{kind:"Variable",name:"after",variableName:"after"},{kind:"Variable",name:"first",variableName:"first"}],u={alias:null,args:null,kind:"ScalarField",name:"__typename",storageKey:null},s={alias:null,args:null,kind:"ScalarField",name:"id",storageKey:null},c={alias:null,args:null,kind:"ScalarField",name:"createdAt",storageKey:null};return{fragment:{argumentDefinitions:n,kind:"Fragment",metadata:null,name:"WebhookPanelRefetchQuery",selections:[{alias:null,args:a,concreteType:null,kind:"LinkedField",name:"node",plural:!1,selections:[{args:t,kind:"FragmentSpread",name:"WebhookPanel_webhook"}],storageKey:null}],type:"Query",abstractKey:null},kind:"Request",operation:{argumentDefinitions:n,kind:"Operation",name:"WebhookPanelRefetchQuery",selections:[{alias:null,args:a,concreteType:null,kind:"LinkedField",name:"node",plural:!1,selections:[u,s,{kind:"InlineFragment",selections:[{alias:null,args:null,kind:"ScalarField",name:"url",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"events",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"active",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"consecutiveFailures",storageKey:null},c,{alias:null,args:t,concreteType:"WebhookDeliveryConnection",kind:"LinkedField",name:"deliveries",plural:!1,selections:[{alias:null,args:null,concreteType:"WebhookDeliveryEdge",kind:"LinkedField",name:"edges",plural:!0,selections:[{alias:null,args:null,concreteType:"WebhookDelivery",kind:"LinkedField",name:"node",plural:!1,selections:[s,{alias:null,args:null,kind:"ScalarField",name:"eventId",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"eventType",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"attempt",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"success",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"statusCode",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"latencyMs",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"error",storageKey:null},c,u],storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"cursor",storageKey:null}],storageKey:null},{alias:null,args:null,concreteType:"PageInfo",kind:"LinkedField",name:"pageInfo",plural:!1,selections:[{alias:null,args:null,kind:"ScalarField",name:"endCursor",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"hasNextPage",storageKey:null}],storageKey:null}],storageKey:null},{alias:null,args:t,filters:null,handle:"connection",key:"WebhookPanel_deliveries",kind:"LinkedHandle",name:"deliveries"}],type:"Webhook",abstractKey:null}],storageKey:null}]},params:{cacheID:"80bbb2b75aaee83503d6a21aea690601",id:null,metadata:{},name:"WebhookPanelRefetchQuery",operationKind:"query",text:`query WebhookPanelRefetchQuery(
  $after: String
  $first: Int = 20
  $id: ID!
) {
  node(id: $id) {
    __typename
    ...WebhookPanel_webhook_2HEEH6
    id
  }
}

fragment WebhookPanel_webhook_2HEEH6 on Webhook {
  id
  url
  events
  active
  consecutiveFailures
  createdAt
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
`}}})();$.hash="d614e9bbfe2fe8b03bd992bef8fcbf9c";var I=$;var T=(function(){var n=["deliveries"],a={alias:null,args:null,kind:"ScalarField",name:"id",storageKey:null},t={alias:null,args:null,kind:"ScalarField",name:"createdAt",storageKey:null};return{argumentDefinitions:[{defaultValue:null,kind:"LocalArgument",name:"after"},{defaultValue:20,kind:"LocalArgument",name:"first"}],kind:"Fragment",metadata:{connection:[{count:"first",cursor:"after",direction:"forward",path:n}],refetch:{connection:{forward:{count:"first",cursor:"after"},backward:null,path:n},fragmentPathInResult:["node"],operation:I,identifierInfo:{identifierField:"id",identifierQueryVariableName:"id"}}},name:"WebhookPanel_webhook",selections:[a,{alias:null,args:null,kind:"ScalarField",name:"url",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"events",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"active",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"consecutiveFailures",storageKey:null},t,{alias:"deliveries",args:null,concreteType:"WebhookDeliveryConnection",kind:"LinkedField",name:"__WebhookPanel_deliveries_connection",plural:!1,selections:[{alias:null,args:null,concreteType:"WebhookDeliveryEdge",kind:"LinkedField",name:"edges",plural:!0,selections:[{alias:null,args:null,concreteType:"WebhookDelivery",kind:"LinkedField",name:"node",plural:!1,selections:[a,{alias:null,args:null,kind:"ScalarField",name:"eventId",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"eventType",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"attempt",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"success",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"statusCode",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"latencyMs",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"error",storageKey:null},t,{alias:null,args:null,kind:"ScalarField",name:"__typename",storageKey:null}],storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"cursor",storageKey:null}],storageKey:null},{alias:null,args:null,concreteType:"PageInfo",kind:"LinkedField",name:"pageInfo",plural:!1,selections:[{alias:null,args:null,kind:"ScalarField",name:"endCursor",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"hasNextPage",storageKey:null}],storageKey:null}],storageKey:null}],type:"Webhook",abstractKey:null}})();T.hash="d614e9bbfe2fe8b03bd992bef8fcbf9c";var C=T;var x=(function(){var n=[{defaultValue:null,kind:"LocalArgument",name:"id"}],a=[{alias:null,args:[{kind:"Variable",name:"id",variableName:"id"}],concreteType:"WebhookTestResult",kind:"LinkedField",name:"testWebhook",plural:!1,selections:[{alias:null,args:null,kind:"ScalarField",name:"statusCode",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"success",storageKey:null}],storageKey:null}];return{fragment:{argumentDefinitions:n,kind:"Fragment",metadata:null,name:"WebhookPanelTestMutation",selections:a,type:"Mutation",abstractKey:null},kind:"Request",operation:{argumentDefinitions:n,kind:"Operation",name:"WebhookPanelTestMutation",selections:a},params:{cacheID:"fd4720cadd1c8e005648f7c8a356df48",id:null,metadata:{},name:"WebhookPanelTestMutation",operationKind:"mutation",text:`mutation WebhookPanelTestMutation(
  $id: ID!
) {
  testWebhook(id: $id) {
    statusCode
    success
  }
}
`}}})();x.hash="c3c0c223203b92376e5512e73189a0d9";var A=x;var L=(function(){var n=[{defaultValue:null,kind:"LocalArgument",name:"id"}],a=[{alias:null,args:[{kind:"Variable",name:"id",variableName:"id"}],concreteType:"Webhook",kind:"LinkedField",name:"rotateWebhookSecret",plural:!1,selections:[{alias:null,args:null,kind:"ScalarField",name:"id",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"secret",storageKey:null}],storageKey:null}];return{fragment:{argumentDefinitions:n,kind:"Fragment",metadata:null,name:"WebhookPanelRotateMutation",selections:a,type:"Mutation",abstractKey:null},kind:"Request",operation:{argumentDefinitions:n,kind:"Operation",name:"WebhookPanelRotateMutation",selections:a},params:{cacheID:"3e7f989a47332b23f367f28200269452",id:null,metadata:{},name:"WebhookPanelRotateMutation",operationKind:"mutation",text:`mutation WebhookPanelRotateMutation(
  $id: ID!
) {
  rotateWebhookSecret(id: $id) {
    id
    secret
  }
}
`}}})();L.hash="02825c1c68e2f86e06c12c993e8cbfe9";var D=L;var N=(function(){var n={defaultValue:null,kind:"LocalArgument",name:"active"},a={defaultValue:null,kind:"LocalArgument",name:"id"},t=[{alias:null,args:[{kind:"Variable",name:"id",variableName:"id"},{fields:[{kind:"Variable",name:"active",variableName:"active"}],kind:"ObjectValue",name:"input"}],concreteType:"Webhook",kind:"LinkedField",name:"updateWebhook",plural:!1,selections:[{alias:null,args:null,kind:"ScalarField",name:"id",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"active",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"consecutiveFailures",storageKey:null}],storageKey:null}];return{fragment:{argumentDefinitions:[n,a],kind:"Fragment",metadata:null,name:"WebhookPanelActiveMutation",selections:t,type:"Mutation",abstractKey:null},kind:"Request",operation:{argumentDefinitions:[a,n],kind:"Operation",name:"WebhookPanelActiveMutation",selections:t},params:{cacheID:"4831691121ca4f8cb15e2e90a6fcb9c2",id:null,metadata:{},name:"WebhookPanelActiveMutation",operationKind:"mutation",text:`mutation WebhookPanelActiveMutation(
  $id: ID!
  $active: Boolean!
) {
  updateWebhook(id: $id, input: {active: $active}) {
    id
    active
    consecutiveFailures
  }
}
`}}})();N.hash="a46e2313ae22f8d0949207213557c4b7";var q=N;var Q=(function(){var n={defaultValue:null,kind:"LocalArgument",name:"eventId"},a={defaultValue:null,kind:"LocalArgument",name:"webhookId"},t=[{alias:null,args:[{kind:"Variable",name:"eventId",variableName:"eventId"},{kind:"Variable",name:"webhookId",variableName:"webhookId"}],kind:"ScalarField",name:"redeliverEvent",storageKey:null}];return{fragment:{argumentDefinitions:[n,a],kind:"Fragment",metadata:null,name:"WebhookPanelRedeliverMutation",selections:t,type:"Mutation",abstractKey:null},kind:"Request",operation:{argumentDefinitions:[a,n],kind:"Operation",name:"WebhookPanelRedeliverMutation",selections:t},params:{cacheID:"cf03d82a9a23760c4b59e9c089f7c502",id:null,metadata:{},name:"WebhookPanelRedeliverMutation",operationKind:"mutation",text:`mutation WebhookPanelRedeliverMutation(
  $webhookId: ID!
  $eventId: ID!
) {
  redeliverEvent(webhookId: $webhookId, eventId: $eventId)
}
`}}})();Q.hash="a7d8e91c7d445fdef9220768c890dd5f";var V=Q;var i=r(ne(),1),E=r(K(),1);var e=r(g(),1);function O({webhook:n}){let{data:a,loadNext:t,hasNext:u,isLoadingNext:s,refetch:c}=(0,E.usePaginationFragment)(C,n),k=R(),[h,p]=(0,i.useState)(null),[m,B]=(0,i.useState)(null),[f,v]=(0,i.useState)(null),[W,z]=(0,i.useState)(null),[j,G]=d(A),[J]=d(D),[U,X]=d(q),[Y]=d(V),b=async l=>{p(null);try{await l()}catch(ae){p(ae)}},[Z,ee]=(0,i.useTransition)(),P=()=>ee(()=>void c({},{fetchPolicy:"network-only"})),F=`wh-${a.id}`;return(0,e.jsxs)("section",{className:"panel","aria-labelledby":F,children:[(0,e.jsx)("h2",{id:F,children:(0,e.jsx)("code",{children:a.url})}),(0,e.jsxs)("dl",{className:"facts",children:[(0,e.jsx)("dt",{children:"Id"}),(0,e.jsx)("dd",{children:(0,e.jsx)("code",{children:a.id})}),(0,e.jsx)("dt",{children:"State"}),(0,e.jsxs)("dd",{children:[(0,e.jsx)("span",{className:`badge ${a.active?"ok":"fail"}`,children:a.active?"enabled":"disabled"}),a.consecutiveFailures>0&&` · ${a.consecutiveFailures} consecutive failures`]}),(0,e.jsx)("dt",{children:"Events"}),(0,e.jsx)("dd",{children:a.events.join(", ")}),(0,e.jsx)("dt",{children:"Created"}),(0,e.jsx)("dd",{children:y(a.createdAt)})]}),k.admin&&(0,e.jsxs)("div",{className:"actions",children:[(0,e.jsx)("button",{type:"button",disabled:G,onClick:()=>b(async()=>B((await j({id:a.id})).testWebhook)),children:"Send test"}),(0,e.jsx)(S,{label:"Rotate secret",title:"Rotate this endpoint's signing secret?",onConfirm:async()=>{let l=await J({id:a.id});v(l.rotateWebhookSecret.secret??null)},children:(0,e.jsx)("p",{children:"For 24 hours deliveries carry signatures under both the new and the old secret."})}),(0,e.jsx)("button",{type:"button",disabled:X,onClick:()=>b(()=>U({id:a.id,active:!a.active})),children:a.active?"Disable":"Enable"}),(0,e.jsx)("button",{type:"button",onClick:P,disabled:Z,children:"Refresh attempts"})]}),(0,e.jsxs)("div",{role:"status","aria-live":"polite",children:[m&&(0,e.jsxs)("p",{className:m.success?"help":"notice",children:["Test delivery: ",m.success?"succeeded":"failed",", HTTP ",m.statusCode,"."]}),W&&(0,e.jsx)("p",{className:"help",children:W})]}),f&&(0,e.jsxs)("div",{className:"secret",children:[(0,e.jsxs)("p",{children:["New secret (shown once; copy it now): ",(0,e.jsx)("code",{"data-testid":"webhook-secret",children:f})]}),(0,e.jsx)("button",{type:"button",onClick:()=>v(null),children:"I have copied it"})]}),h!=null&&(0,e.jsx)(_,{error:h}),(0,e.jsx)("div",{className:"scroll",children:(0,e.jsxs)("table",{children:[(0,e.jsx)("caption",{children:"Delivery attempts, newest first"}),(0,e.jsx)("thead",{children:(0,e.jsxs)("tr",{children:[(0,e.jsx)("th",{scope:"col",children:"Event"}),(0,e.jsx)("th",{scope:"col",children:"Type"}),(0,e.jsx)("th",{scope:"col",className:"num",children:"Attempt"}),(0,e.jsx)("th",{scope:"col",children:"Status"}),(0,e.jsx)("th",{scope:"col",className:"num",children:"Latency"}),(0,e.jsx)("th",{scope:"col",children:"At"}),k.admin&&(0,e.jsx)("th",{scope:"col",children:"Redeliver"})]})}),(0,e.jsxs)("tbody",{children:[a.deliveries.edges.map(({node:l})=>(0,e.jsxs)("tr",{children:[(0,e.jsx)("th",{scope:"row",children:(0,e.jsx)("code",{children:l.eventId})}),(0,e.jsx)("td",{children:l.eventType}),(0,e.jsx)("td",{className:"num",children:l.attempt}),(0,e.jsxs)("td",{children:[(0,e.jsx)("span",{className:`badge ${l.success?"ok":"fail"}`,children:l.success?"ok":"failed"})," ",l.statusCode??"",l.error&&(0,e.jsx)("div",{className:"muted",children:l.error})]}),(0,e.jsxs)("td",{className:"num",children:[l.latencyMs," ms"]}),(0,e.jsx)("td",{children:y(l.createdAt)}),k.admin&&(0,e.jsx)("td",{children:(0,e.jsx)("button",{type:"button","aria-label":`Redeliver ${l.eventId}`,onClick:()=>b(async()=>{await Y({webhookId:a.id,eventId:l.eventId}),z(`Redelivery of ${l.eventId} queued; the new attempt appears below.`),window.setTimeout(P,1e3)}),children:"Redeliver"})})]},l.id)),a.deliveries.edges.length===0&&(0,e.jsx)("tr",{children:(0,e.jsx)("td",{colSpan:k.admin?7:6,children:"No attempts yet."})})]})]})}),u&&(0,e.jsx)("button",{type:"button",onClick:()=>t(20),disabled:s,children:s?"Loading…":"Older attempts"})]})}var o=r(g(),1);function Re(){let n=(0,H.useLazyLoadQuery)(w,{},{fetchPolicy:"store-and-network"});return(0,o.jsxs)(o.Fragment,{children:[(0,o.jsx)("h1",{children:"Webhooks"}),n.webhooks.length===0&&(0,o.jsxs)("p",{children:["No endpoints. Register one with ",(0,o.jsx)("code",{children:"registerWebhook"})," or ",(0,o.jsx)("code",{children:"POST /webhooks"})," (docs/webhooks.md)."]}),n.webhooks.map(a=>(0,o.jsx)(O,{webhook:a},a.id))]})}export{Re as WebhooksPage};
