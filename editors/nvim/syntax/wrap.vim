" Vim syntax file for wrapcheck's .wrap specs (Vim and Neovim).
" The word lists follow the language's one table of words,
" spec/syntax/words.go; editors/words_test.go holds this file to it.
if exists('b:current_syntax')
  finish
endif

syn keyword wrapDeclaration spec const type var fn agent process action init invariant property fairness terminal rate probability cost expected
syn keyword wrapModifier weak strong symmetric
syn keyword wrapStatement when let ask choose for where if then else match assert skip assume within bound
syn keyword wrapOperator and or not implies in subset union minus intersect mod forall exists count sum min max
syn keyword wrapTemporal always eventually next until release weakuntil leadsto once historically previously since
syn keyword wrapType bool record set seq of
syn keyword wrapBuiltin card len head tail append concat
syn keyword wrapPredeclared result
syn keyword wrapBoolean true false
syn match wrapNumber '\<\d\+\>'
syn region wrapString start='"' skip='\\.' end='"'
syn match wrapComment '//.*$'
syn region wrapComment start='/\*' end='\*/'

hi def link wrapDeclaration Keyword
hi def link wrapModifier StorageClass
hi def link wrapStatement Statement
hi def link wrapOperator Operator
hi def link wrapTemporal Operator
hi def link wrapType Type
hi def link wrapBuiltin Function
hi def link wrapPredeclared Identifier
hi def link wrapBoolean Boolean
hi def link wrapNumber Number
hi def link wrapString String
hi def link wrapComment Comment

let b:current_syntax = 'wrap'
