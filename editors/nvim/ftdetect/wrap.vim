" wrapcheck's .wrap specs (set, not setfiletype: Vim's own rules read
" *.wrap as a Meson wrap file, dosini)
autocmd BufRead,BufNewFile *.wrap set filetype=wrap
