import{a as u,b,c as m}from"./chunk-73V6SR5P.js";import{b as d,d as U,f as A,i as y,j as h,l as p}from"./chunk-VRV7FXVT.js";var F=(function(){var t={alias:null,args:null,kind:"ScalarField",name:"id",storageKey:null};return{fragment:{argumentDefinitions:[],kind:"Fragment",metadata:null,name:"KeysPageQuery",selections:[{alias:null,args:null,concreteType:"ApiKey",kind:"LinkedField",name:"apiKeys",plural:!0,selections:[t,{args:null,kind:"FragmentSpread",name:"KeyRow_key"}],storageKey:null}],type:"Query",abstractKey:null},kind:"Request",operation:{argumentDefinitions:[],kind:"Operation",name:"KeysPageQuery",selections:[{alias:null,args:null,concreteType:"ApiKey",kind:"LinkedField",name:"apiKeys",plural:!0,selections:[t,{alias:null,args:null,kind:"ScalarField",name:"name",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"role",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"agentIds",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"createdAt",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"lastUsedAt",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"revokedAt",storageKey:null}],storageKey:null}]},params:{cacheID:"21847c97d5f782f9c28410f45987d0f6",id:null,metadata:{},name:"KeysPageQuery",operationKind:"query",text:`query KeysPageQuery {
  apiKeys {
    id
    ...KeyRow_key
  }
}

fragment KeyRow_key on ApiKey {
  id
  name
  role
  agentIds
  createdAt
  lastUsedAt
  revokedAt
}
`}}})();F.hash="11af12d6b5dde8e1d4ecb73b59ad8e46";var _=F;var w=(function(){var t=[{defaultValue:null,kind:"LocalArgument",name:"input"}],a=[{kind:"Variable",name:"input",variableName:"input"}],o={alias:null,args:null,kind:"ScalarField",name:"id",storageKey:null},i={alias:null,args:null,kind:"ScalarField",name:"secret",storageKey:null};return{fragment:{argumentDefinitions:t,kind:"Fragment",metadata:null,name:"KeysPageCreateMutation",selections:[{alias:null,args:a,concreteType:"CreatedApiKey",kind:"LinkedField",name:"createApiKey",plural:!1,selections:[{alias:null,args:null,concreteType:"ApiKey",kind:"LinkedField",name:"key",plural:!1,selections:[o,{args:null,kind:"FragmentSpread",name:"KeyRow_key"}],storageKey:null},i],storageKey:null}],type:"Mutation",abstractKey:null},kind:"Request",operation:{argumentDefinitions:t,kind:"Operation",name:"KeysPageCreateMutation",selections:[{alias:null,args:a,concreteType:"CreatedApiKey",kind:"LinkedField",name:"createApiKey",plural:!1,selections:[{alias:null,args:null,concreteType:"ApiKey",kind:"LinkedField",name:"key",plural:!1,selections:[o,{alias:null,args:null,kind:"ScalarField",name:"name",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"role",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"agentIds",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"createdAt",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"lastUsedAt",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"revokedAt",storageKey:null}],storageKey:null},i],storageKey:null}]},params:{cacheID:"5488a9878bb7eea941197fe89f70bfdf",id:null,metadata:{},name:"KeysPageCreateMutation",operationKind:"mutation",text:`mutation KeysPageCreateMutation(
  $input: CreateApiKeyInput!
) {
  createApiKey(input: $input) {
    key {
      id
      ...KeyRow_key
    }
    secret
  }
}

fragment KeyRow_key on ApiKey {
  id
  name
  role
  agentIds
  createdAt
  lastUsedAt
  revokedAt
}
`}}})();w.hash="526f3296f577a625342e448bab5a1e16";var C=w;var r=d(U(),1),q=d(A(),1);var $={argumentDefinitions:[],kind:"Fragment",metadata:null,name:"KeyRow_key",selections:[{alias:null,args:null,kind:"ScalarField",name:"id",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"name",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"role",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"agentIds",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"createdAt",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"lastUsedAt",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"revokedAt",storageKey:null}],type:"ApiKey",abstractKey:null};$.hash="e06603c0f0ee1ef889b7170b408b7983";var S=$;var P=(function(){var t=[{defaultValue:null,kind:"LocalArgument",name:"id"}],a=[{alias:null,args:[{kind:"Variable",name:"id",variableName:"id"}],concreteType:"ApiKey",kind:"LinkedField",name:"revokeApiKey",plural:!1,selections:[{alias:null,args:null,kind:"ScalarField",name:"id",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"revokedAt",storageKey:null}],storageKey:null}];return{fragment:{argumentDefinitions:t,kind:"Fragment",metadata:null,name:"KeyRowRevokeMutation",selections:a,type:"Mutation",abstractKey:null},kind:"Request",operation:{argumentDefinitions:t,kind:"Operation",name:"KeyRowRevokeMutation",selections:a},params:{cacheID:"1338087567c7f6839b141409fc47dcdb",id:null,metadata:{},name:"KeyRowRevokeMutation",operationKind:"mutation",text:`mutation KeyRowRevokeMutation(
  $id: ID!
) {
  revokeApiKey(id: $id) {
    id
    revokedAt
  }
}
`}}})();P.hash="fac5a901542420de7982646da13aaec6";var M=P;var I=d(A(),1);var n=d(y(),1);function x({apiKey:t}){let a=(0,I.useFragment)(S,t),o=u(),[i]=m(M);return(0,n.jsxs)("tr",{children:[(0,n.jsx)("th",{scope:"row",children:a.name||"—"}),(0,n.jsxs)("td",{children:[(0,n.jsx)("code",{children:a.id}),a.id===o.keyId&&(0,n.jsx)("span",{className:"muted",children:" (this key)"})]}),(0,n.jsx)("td",{children:a.role}),(0,n.jsx)("td",{children:a.agentIds.length?a.agentIds.map(l=>(0,n.jsxs)("code",{children:[l," "]},l)):"—"}),(0,n.jsx)("td",{children:p(a.createdAt)}),(0,n.jsx)("td",{children:p(a.lastUsedAt)}),(0,n.jsx)("td",{children:a.revokedAt?(0,n.jsxs)("span",{className:"badge fail",children:["revoked ",p(a.revokedAt)]}):(0,n.jsx)(b,{label:"Revoke",buttonLabel:`Revoke ${a.name||a.id}`,title:`Revoke ${a.name||a.id}?`,danger:!0,onConfirm:()=>i({id:a.id}),children:(0,n.jsx)("p",{children:"It is refused from the next request on, and its live streams end."})})})]})}var e=d(y(),1);function ie(){let t=u(),[a,o]=(0,r.useState)(0),i=(0,q.useLazyLoadQuery)(_,{},{fetchKey:a,fetchPolicy:a?"network-only":"store-or-network"});return t.admin?(0,e.jsxs)(e.Fragment,{children:[(0,e.jsx)("h1",{children:"Keys"}),(0,e.jsx)(B,{onCreated:()=>(0,r.startTransition)(()=>o(l=>l+1))}),(0,e.jsx)("div",{className:"scroll",children:(0,e.jsxs)("table",{children:[(0,e.jsx)("caption",{children:"API keys of this organization"}),(0,e.jsx)("thead",{children:(0,e.jsxs)("tr",{children:[(0,e.jsx)("th",{scope:"col",children:"Name"}),(0,e.jsx)("th",{scope:"col",children:"Id"}),(0,e.jsx)("th",{scope:"col",children:"Role"}),(0,e.jsx)("th",{scope:"col",children:"Agents"}),(0,e.jsx)("th",{scope:"col",children:"Created"}),(0,e.jsx)("th",{scope:"col",children:"Last used"}),(0,e.jsx)("th",{scope:"col",children:"State"})]})}),(0,e.jsx)("tbody",{children:i.apiKeys.map(l=>(0,e.jsx)(x,{apiKey:l},l.id))})]})})]}):(0,e.jsx)("p",{children:"Only admin keys manage keys."})}function B({onCreated:t}){let a=(0,r.useId)(),[o,i]=(0,r.useState)(""),[l,Q]=(0,r.useState)("readonly"),[c,K]=(0,r.useState)(""),[k,f]=(0,r.useState)(null),[R,v]=(0,r.useState)(null),[L,D]=m(C),N=async s=>{s.preventDefault(),f(null);try{let g=c.split(/[\s,]+/).filter(Boolean),T=await L({input:{name:o,role:l,agentIds:l==="agent"?g:null}});v(T.createApiKey.secret),i(""),K(""),t()}catch(g){f(g)}};return(0,e.jsxs)("section",{className:"panel","aria-labelledby":`${a}-h`,children:[(0,e.jsx)("h2",{id:`${a}-h`,children:"Create a key"}),(0,e.jsxs)("form",{onSubmit:N,className:"grid-form",children:[(0,e.jsxs)("p",{children:[(0,e.jsx)("label",{htmlFor:`${a}-n`,children:"Name"}),(0,e.jsx)("input",{id:`${a}-n`,value:o,required:!0,onChange:s=>i(s.target.value)})]}),(0,e.jsxs)("p",{children:[(0,e.jsx)("label",{htmlFor:`${a}-r`,children:"Role"}),(0,e.jsxs)("select",{id:`${a}-r`,value:l,onChange:s=>Q(s.target.value),children:[(0,e.jsx)("option",{value:"readonly",children:"readonly"}),(0,e.jsx)("option",{value:"agent",children:"agent"}),(0,e.jsx)("option",{value:"admin",children:"admin"})]})]}),l==="agent"&&(0,e.jsxs)("p",{children:[(0,e.jsx)("label",{htmlFor:`${a}-a`,children:"Agent ids (comma-separated)"}),(0,e.jsx)("input",{id:`${a}-a`,value:c,required:!0,onChange:s=>K(s.target.value)})]}),(0,e.jsx)("p",{children:(0,e.jsx)("button",{type:"submit",className:"primary",disabled:D,children:"Create key"})})]}),k!=null&&(0,e.jsx)(h,{error:k}),R&&(0,e.jsxs)("div",{className:"secret",role:"status",children:[(0,e.jsxs)("p",{children:["The new key's secret, shown once: ",(0,e.jsx)("code",{"data-testid":"key-secret",children:R})]}),(0,e.jsx)("button",{type:"button",onClick:()=>v(null),children:"I have copied it"})]})]})}export{ie as KeysPage};
