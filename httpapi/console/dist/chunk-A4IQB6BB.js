import{b as o,c as i}from"./chunk-73V6SR5P.js";import{b as t,c as d,d as _,f as M,i as l,j as p}from"./chunk-VRV7FXVT.js";var g=t(_(),1);var a=t(l(),1),m=class extends g.Component{constructor(){super(...arguments);d(this,"state",{error:null})}static getDerivedStateFromError(r){return{error:r}}render(){return this.state.error==null?this.props.children:(0,a.jsxs)("div",{className:"boundary",children:[(0,a.jsx)(p,{error:this.state.error,...this.props.title?{title:this.props.title}:{}}),(0,a.jsx)("button",{type:"button",onClick:()=>this.setState({error:null}),children:"Try again"}),this.props.onSignOut&&(0,a.jsx)("button",{type:"button",onClick:this.props.onSignOut,children:"Sign out"})]})}};var c={argumentDefinitions:[],kind:"Fragment",metadata:null,name:"SuspendButton_agent",selections:[{alias:null,args:null,kind:"ScalarField",name:"id",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"name",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"status",storageKey:null}],type:"Agent",abstractKey:null};c.hash="1e8dceb92cec926911bcc05477a5d5b0";var y=c;var S=(function(){var n=[{defaultValue:null,kind:"LocalArgument",name:"id"},{defaultValue:null,kind:"LocalArgument",name:"reason"}],e=[{alias:null,args:[{kind:"Variable",name:"id",variableName:"id"},{kind:"Variable",name:"reason",variableName:"reason"}],concreteType:"Agent",kind:"LinkedField",name:"suspendAgent",plural:!1,selections:[{alias:null,args:null,kind:"ScalarField",name:"id",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"status",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"updatedAt",storageKey:null},{alias:null,args:null,concreteType:"TrustProfile",kind:"LinkedField",name:"trust",plural:!1,selections:[{alias:null,args:null,kind:"ScalarField",name:"score",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"assessment",storageKey:null},{alias:null,args:null,concreteType:"TrustFactors",kind:"LinkedField",name:"factors",plural:!1,selections:[{alias:null,args:null,kind:"ScalarField",name:"confidence",storageKey:null}],storageKey:null}],storageKey:null}],storageKey:null}];return{fragment:{argumentDefinitions:n,kind:"Fragment",metadata:null,name:"SuspendButtonSuspendMutation",selections:e,type:"Mutation",abstractKey:null},kind:"Request",operation:{argumentDefinitions:n,kind:"Operation",name:"SuspendButtonSuspendMutation",selections:e},params:{cacheID:"938e767020489c98a81dc07a4f6e0765",id:null,metadata:{},name:"SuspendButtonSuspendMutation",operationKind:"mutation",text:`mutation SuspendButtonSuspendMutation(
  $id: ID!
  $reason: String
) {
  suspendAgent(id: $id, reason: $reason) {
    id
    status
    updatedAt
    trust {
      score
      assessment
      factors {
        confidence
      }
    }
  }
}
`}}})();S.hash="9cfc21bb9b2f0a0f4f719fd661d06ae2";var f=S;var k=(function(){var n=[{defaultValue:null,kind:"LocalArgument",name:"id"},{defaultValue:null,kind:"LocalArgument",name:"reason"}],e=[{alias:null,args:[{kind:"Variable",name:"id",variableName:"id"},{kind:"Variable",name:"reason",variableName:"reason"}],concreteType:"Agent",kind:"LinkedField",name:"reinstateAgent",plural:!1,selections:[{alias:null,args:null,kind:"ScalarField",name:"id",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"status",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"updatedAt",storageKey:null},{alias:null,args:null,concreteType:"TrustProfile",kind:"LinkedField",name:"trust",plural:!1,selections:[{alias:null,args:null,kind:"ScalarField",name:"score",storageKey:null},{alias:null,args:null,kind:"ScalarField",name:"assessment",storageKey:null},{alias:null,args:null,concreteType:"TrustFactors",kind:"LinkedField",name:"factors",plural:!1,selections:[{alias:null,args:null,kind:"ScalarField",name:"confidence",storageKey:null}],storageKey:null}],storageKey:null}],storageKey:null}];return{fragment:{argumentDefinitions:n,kind:"Fragment",metadata:null,name:"SuspendButtonReinstateMutation",selections:e,type:"Mutation",abstractKey:null},kind:"Request",operation:{argumentDefinitions:n,kind:"Operation",name:"SuspendButtonReinstateMutation",selections:e},params:{cacheID:"c30f602f0310fa51272a90d9db06b2dc",id:null,metadata:{},name:"SuspendButtonReinstateMutation",operationKind:"mutation",text:`mutation SuspendButtonReinstateMutation(
  $id: ID!
  $reason: String
) {
  reinstateAgent(id: $id, reason: $reason) {
    id
    status
    updatedAt
    trust {
      score
      assessment
      factors {
        confidence
      }
    }
  }
}
`}}})();k.hash="ef8afccfd2abd09c6fd1ab59e2b0dcd1";var b=k;var B=t(M(),1);var s=t(l(),1);function V({agent:n}){let e=(0,B.useFragment)(y,n),[r]=i(f),[F]=i(b);return e.status==="active"?(0,s.jsx)(o,{label:"Suspend",buttonLabel:`Suspend ${e.name}`,title:`Suspend ${e.name}?`,danger:!0,reason:"optional",onConfirm:u=>r({id:e.id,reason:u||null}),children:(0,s.jsx)("p",{children:"Its evaluations and executes are refused until it is reinstated."})}):(0,s.jsx)(o,{label:"Reinstate",buttonLabel:`Reinstate ${e.name}`,title:`Reinstate ${e.name}?`,reason:"optional",onConfirm:u=>F({id:e.id,reason:u||null}),children:(0,s.jsx)("p",{children:"It may act again; its score is recomputed."})})}export{m as a,V as b};
