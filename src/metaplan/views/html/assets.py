# ruff: noqa: E501 - the style and the script are text for the browser, kept compact
"""The style and the script every report carries inline (nothing is ever fetched).

The page reads without either: the content is HTML (``<details>`` per group,
tables), the controls are ``hidden`` until the script shows them. The script
only adds search (an FQN, a glob or a brace pattern), filters (op, field,
key, pass), "show unchanged" (the diff report's unchanged modules, hidden
until asked for), keyboard navigation (``/`` search, ``j``/``k`` next/previous
group, ``o`` open or close, ``Esc`` clear) and permalinks (``#fqn=NAME``).
"""

from __future__ import annotations

__all__ = ["SCRIPT", "STYLE"]

STYLE = """
:root{--fg:#1f2328;--muted:#59636e;--bg:#fff;--panel:#f6f8fa;--line:#d1d9e0;
--add:#1a7f37;--rem:#cf222e;--set:#9a6700;--hit:#fff8c5;--link:#0969da}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--muted:#9198a1;--bg:#0d1117;
--panel:#161b22;--line:#3d444d;--add:#3fb950;--rem:#f85149;--set:#d29922;--hit:#3b2e00;
--link:#4493f8}}
*{box-sizing:border-box}
body{margin:0 auto;max-width:1200px;padding:1rem 1.5rem 3rem;color:var(--fg);
background:var(--bg);font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif}
h1{font-size:1.5rem;margin:.2rem 0}h2{font-size:1.15rem;margin:1.6rem 0 .5rem;
border-bottom:1px solid var(--line);padding-bottom:.2rem}h3{font-size:1rem;margin:1rem 0 .4rem}
code,pre,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.92em}
a{color:var(--link)}
.sub{color:var(--muted);margin:.2rem 0}
.summary{font-size:1.05rem;margin:.6rem 0}
table{border-collapse:collapse;margin:.4rem 0}
th,td{border:1px solid var(--line);padding:.2rem .5rem;text-align:left;vertical-align:top}
th{background:var(--panel)}td.num{text-align:right;font-variant-numeric:tabular-nums}
details.grp{scroll-margin-top:11rem;border:1px solid var(--line);border-radius:6px;margin:.35rem 0;background:var(--bg)}
details.grp>summary{cursor:pointer;padding:.35rem .6rem;background:var(--panel);
border-radius:6px;list-style-position:outside;margin-left:1rem}
details.grp[open]>summary{border-bottom:1px solid var(--line);border-radius:6px 6px 0 0}
details.grp>summary:focus-visible{outline:2px solid var(--link)}
details.grp>.body{padding:.4rem .8rem}
.pattern{font-weight:600;overflow-wrap:anywhere}
.count{display:inline-block;margin:0 .4rem;padding:0 .45rem;border-radius:1rem;
background:var(--line);font-size:.85em}
.change{color:var(--muted);overflow-wrap:anywhere}
.op-add{color:var(--add)}.op-remove{color:var(--rem)}.op-set{color:var(--set)}
.ok{color:var(--add);font-weight:600}.bad{color:var(--rem);font-weight:600}
.members{margin:.3rem 0;padding-left:1.2rem;columns:2 30rem}.members li{overflow-wrap:anywhere}
.more{color:var(--muted);font-style:italic}
.why{color:var(--muted)}
.found{background:var(--hit);padding:.3rem .6rem .3rem 1.6rem;margin:.3rem 0;border-radius:4px}
.hit>summary{background:var(--hit)}
#controls{position:sticky;top:0;z-index:2;background:var(--bg);padding:.5rem 0;
border-bottom:1px solid var(--line);display:flex;gap:.5rem;flex-wrap:wrap;align-items:center}
#controls input[type=search]{flex:1 1 22rem;padding:.3rem .5rem;font:inherit;
color:var(--fg);background:var(--panel);border:1px solid var(--line);border-radius:6px}
#controls select,#controls button{font:inherit;color:var(--fg);background:var(--panel);
border:1px solid var(--line);border-radius:6px;padding:.25rem .4rem}
#controls[hidden],[hidden]{display:none}
#status{color:var(--muted);flex-basis:100%}
.picture{overflow-x:auto}.picture svg{max-width:100%;height:auto}
.picture svg text{fill:var(--fg);font:10px system-ui,sans-serif}
#unchanged-list>summary{cursor:pointer;color:var(--muted);margin:.3rem 0}
details.unchanged>summary{background:none}
.steps{margin:.2rem 0 .2rem 1.2rem;padding:0}
footer{margin-top:2rem;color:var(--muted);font-size:.85rem;border-top:1px solid var(--line)}
kbd{border:1px solid var(--line);border-radius:3px;padding:0 .25rem;font-size:.85em}
@media print{#controls{display:none}details.grp>summary{background:none}
body{max-width:none;padding:0;font-size:11px}a{color:inherit}}
"""

SCRIPT = r"""
(function(){
"use strict";
var D=JSON.parse(document.getElementById("metaplan-data").textContent);
var groups=Array.prototype.slice.call(document.querySelectorAll("details.grp"));
var input=document.getElementById("q"),status=document.getElementById("status");
var controls=document.getElementById("controls");
var box=document.getElementById("show-unchanged"),unchanged=document.getElementById("unchanged");
controls.hidden=false;
function info(g){var id=g.dataset.gid;return D.groups[id]||(D.unchanged&&D.unchanged.groups[id]);}
function isSame(g){return g.classList.contains("unchanged");}
function showSame(){return !!(box&&box.checked);}
function reveal(g){for(var p=g.parentElement;p;p=p.parentElement){if(p.tagName==="DETAILS")p.open=true;}}
if(unchanged)unchanged.hidden=!showSame();
function esc(c){return c.replace(/[.*+?^${}()|[\]\\\/-]/g,"\\$&");}
function compile(q){
  var i=0,ranges=[];
  function seq(stop){
    var out="";
    while(i<q.length){
      var c=q.charAt(i);
      if(stop.indexOf(c)>=0)break;
      if(c==="*"){out+="[\\s\\S]*";i++;}
      else if(c==="?"){out+="[\\s\\S]";i++;}
      else if(c==="{"){out+=brace();}
      else{out+=esc(c);i++;}
    }
    return out;
  }
  function brace(){
    var start=i,kept=ranges.length;i++;
    var m=q.slice(i).match(/^(-?\d+)\.\.(-?\d+)\}/);
    if(m){i+=m[0].length;ranges.push([+m[1],+m[2]]);return "(-?\\d+)";}
    var alts=[];
    for(;;){
      alts.push(seq(",}"));
      if(i>=q.length){i=start+1;ranges.length=kept;return esc("{");}
      if(q.charAt(i)===","){i++;continue;}
      i++;break;
    }
    if(alts.length<2)return esc("{")+alts[0]+esc("}");
    return "(?:"+alts.join("|")+")";
  }
  var re=new RegExp("^"+seq("")+"$");
  return function(name){
    var m=name.match(re);if(!m)return false;
    for(var k=0;k<ranges.length;k++){
      var v=m[k+1];if(v===undefined)continue;
      var n=+v,lo=Math.min(ranges[k][0],ranges[k][1]),hi=Math.max(ranges[k][0],ranges[k][1]);
      if(n<lo||n>hi)return false;
    }
    return true;
  };
}
function matcher(q){
  if(/[*?{]/.test(q))return compile(q);
  var exact=false;
  groups.forEach(function(g){var d=info(g);
    if(d&&d.members&&d.members.indexOf(q)>=0)exact=true;});
  if(exact)return function(n){return n===q;};
  return function(n){return n.indexOf(q)>=0;};
}
function filters(){
  var f={};
  Array.prototype.forEach.call(controls.querySelectorAll("select"),function(s){
    if(s.value)f[s.name]=s.value;});
  return f;
}
function passes(g,f){
  for(var k in f){
    var have=(g.getAttribute("data-"+k)||"").split(" ");
    if(have.indexOf(f[k])<0)return false;
  }
  return true;
}
function clearFound(){
  Array.prototype.forEach.call(document.querySelectorAll(".found"),function(e){e.remove();});
  groups.forEach(function(g){g.classList.remove("hit");});
}
function label(name){return name&&!/[\x00-\x1f\x7f-\x9f]/.test(name)?name:JSON.stringify(name);}
function matches(g,q,test){
  var d=info(g)||{},found=[];
  var pattern=d.modules||d.paths||d.items||"";
  if(d.members){for(var k=0;k<d.members.length;k++){if(test(d.members[k]))found.push(d.members[k]);}}
  if(!found.length&&(pattern===q||test(pattern)))found.push(pattern);
  return found;
}
function run(q,jump){
  clearFound();
  var f=filters(),test=q?matcher(q):null,shown=0,total=0,hitGroups=0,hits=0,first=null;
  var same=showSame(),aside=0;
  groups.forEach(function(g){
    var ok=passes(g,f),found=[];
    if(isSame(g)&&!same){
      if(ok&&test)aside+=matches(g,q,test).length;
      g.hidden=true;return;
    }
    total++;
    if(ok&&test){found=matches(g,q,test);ok=found.length>0;}
    g.hidden=!ok;
    if(ok)shown++;
    if(ok&&test){
      hitGroups++;hits+=found.length;g.open=true;g.classList.add("hit");reveal(g);
      var ul=document.createElement("ul");ul.className="found";
      found.slice(0,50).forEach(function(n){var li=document.createElement("li");
        var c=document.createElement("code");c.textContent=label(n);li.appendChild(c);ul.appendChild(li);});
      if(found.length>50){var li=document.createElement("li");li.className="more";
        li.textContent="and "+(found.length-50).toLocaleString("en-US")+" more matches";ul.appendChild(li);}
      var body=g.querySelector(".body");body.insertBefore(ul,body.firstChild);
      if(!first)first=g;
    }
  });
  Array.prototype.forEach.call(document.querySelectorAll("section[data-groups]"),function(s){
    var any=s.querySelector("details.grp:not([hidden])");s.classList.toggle("empty",!any);});
  if(test){
    status.textContent=(hits?(hits.toLocaleString("en-US")+" match"+(hits===1?"":"es")+" in "+hitGroups+" group"+(hitGroups===1?"":"s")):"no match for "+q)
      +(aside?"; "+aside.toLocaleString("en-US")+" in the unchanged modules (tick show unchanged)":"");
    if(first&&jump){first.scrollIntoView({block:"start"});first.querySelector("summary").focus({preventScroll:true});}
  }else{status.textContent=shown+" of "+total+" groups shown";}
}
function search(jump){
  var q=input.value.trim();
  if(q)history.replaceState(null,"","#fqn="+encodeURIComponent(q));
  else if(location.hash.indexOf("#fqn=")===0)history.replaceState(null,"",location.pathname+location.search);
  run(q,jump);
}
if(box)box.addEventListener("change",function(){
  unchanged.hidden=!box.checked;
  if(box.checked)document.getElementById("unchanged-list").open=true;
  search(false);
});
controls.addEventListener("submit",function(e){e.preventDefault();search(true);});
input.addEventListener("input",function(){if(!input.value)search(false);});
Array.prototype.forEach.call(controls.querySelectorAll("select"),function(s){
  var seen={};
  groups.forEach(function(g){(g.getAttribute("data-"+s.name)||"").split(" ").forEach(function(v){if(v)seen[v]=1;});});
  Object.keys(seen).sort().forEach(function(v){var o=document.createElement("option");o.value=v;o.textContent=v;s.appendChild(o);});
  if(!Object.keys(seen).length)s.hidden=true;
  s.addEventListener("change",function(){search(false);});
});
document.getElementById("expand").addEventListener("click",function(){
  var open=groups.some(function(g){return !g.hidden&&!g.open;});
  groups.forEach(function(g){if(!g.hidden)g.open=open;});
});
groups.forEach(function(g){
  var d=info(g);
  var more=g.querySelector(".more[data-rest]");
  if(!d||!d.members||!more)return;
  var b=document.createElement("button");b.type="button";b.textContent="list every one";
  b.addEventListener("click",function(){
    var ul=g.querySelector("ul.every");
    if(!ul){ul=document.createElement("ul");ul.className="members every mono";more.after(ul);}
    var at=ul.children.length,end=Math.min(d.members.length,at+1000);
    for(var k=at;k<end;k++){var li=document.createElement("li");li.textContent=label(d.members[k]);ul.appendChild(li);}
    b.textContent=end<d.members.length?"1,000 more ("+(d.members.length-end).toLocaleString("en-US")+" left)":"all listed";
    b.disabled=end>=d.members.length;
  });
  more.appendChild(document.createTextNode(" "));more.appendChild(b);
});
function visible(){return groups.filter(function(g){return !g.hidden;});}
document.addEventListener("keydown",function(e){
  if(e.target===input){if(e.key==="Escape"){input.value="";search(false);input.blur();}return;}
  if(e.target.tagName==="SELECT"||e.ctrlKey||e.metaKey||e.altKey)return;
  var v=visible(),at=v.indexOf(document.activeElement&&document.activeElement.parentElement);
  if(e.key==="/"){e.preventDefault();input.focus();}
  else if(e.key==="j"||e.key==="k"){
    if(!v.length)return;
    var n=e.key==="j"?Math.min(v.length-1,at+1):Math.max(0,at<0?0:at-1);
    reveal(v[n]);v[n].querySelector("summary").focus();v[n].scrollIntoView({block:"nearest"});}
  else if(e.key==="o"&&at>=0){v[at].open=!v[at].open;}
});
window.addEventListener("beforeprint",function(){groups.forEach(function(g){g.dataset.was=g.open?"1":"";g.open=true;});});
window.addEventListener("afterprint",function(){groups.forEach(function(g){g.open=g.dataset.was==="1";});});
function fromHash(){
  if(location.hash.indexOf("#fqn=")!==0)return false;
  input.value=decodeURIComponent(location.hash.slice(5));run(input.value.trim(),true);return true;
}
window.addEventListener("hashchange",fromHash);
if(!fromHash())run("",false);
})();
"""
