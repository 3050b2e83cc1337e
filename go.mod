module github.com/banmen/banmen

go 1.26
