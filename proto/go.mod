module github.com/quire-app/quire/proto

go 1.26.8
