// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// @title A Kassa sandbox stablecoin that moves across chains by burn and mint ("reforge").
/// @notice A holder burns with `reforge`; the emulator's relayer sees the `ReforgeBurn` event and
/// mints the same amount to the same address with `reforgeMint` on the destination chain (or back
/// on this chain, as a refund, when the destination is not one it serves).
contract KassaStablecoin is ERC20 {
    /// @notice The only address allowed to mint after deployment: the emulator's relayer key.
    address public immutable relayer;
    /// @notice Counts burns, so that every burn of this token has its own id.
    uint256 public burnNonce;
    /// @notice Burn ids already minted for: each settles at most once, whatever the relayer retries.
    mapping(bytes32 burnId => bool) public settled;

    event ReforgeBurn(
        address indexed from,
        uint256 amount,
        uint256 indexed destinationChainId,
        address destinationToken,
        bytes32 indexed burnId
    );
    event ReforgeMint(address indexed to, uint256 amount, bytes32 indexed burnId);

    error ZeroAmount();
    error SameChain(uint256 chainId);
    error NotRelayer(address caller);
    error AlreadySettled(bytes32 burnId);

    /// @param holders Accounts that start with `holding` each (the chain's default accounts).
    constructor(string memory name_, string memory symbol_, address relayer_, address[] memory holders, uint256 holding)
        ERC20(name_, symbol_)
    {
        relayer = relayer_;
        for (uint256 i = 0; i < holders.length; i++) {
            _mint(holders[i], holding);
        }
    }

    /// @notice Burns `amount` from the caller for a transfer to `destinationToken` on `destinationChainId`.
    function reforge(uint256 amount, uint256 destinationChainId, address destinationToken)
        external
        returns (bytes32 burnId)
    {
        if (amount == 0) revert ZeroAmount();
        if (destinationChainId == block.chainid) revert SameChain(destinationChainId);
        _burn(msg.sender, amount);
        burnId = keccak256(abi.encode(block.chainid, address(this), ++burnNonce));
        emit ReforgeBurn(msg.sender, amount, destinationChainId, destinationToken, burnId);
    }

    /// @notice Mints for the burn `burnId` (on another chain, or on this one as a refund); once per id.
    function reforgeMint(address to, uint256 amount, bytes32 burnId) external {
        if (msg.sender != relayer) revert NotRelayer(msg.sender);
        if (settled[burnId]) revert AlreadySettled(burnId);
        settled[burnId] = true;
        _mint(to, amount);
        emit ReforgeMint(to, amount, burnId);
    }
}
